package cache

import (
	"context"

	"energy/schema/registry"
)

// Sites reads sites through a short-lived Reference cache: the endpoints computing answers
// look their site up for every request.
type Sites struct {
	reg   *registry.Store
	cache *Reference[registry.Site]
}

// NewSites returns a cache of reg's sites.
func NewSites(reg *registry.Store) *Sites {
	return &Sites{reg: reg, cache: NewReference[registry.Site](reg.Versions)}
}

// Site is reg.Site, cached: registry.ErrNotFound when the tenant has no such site.
func (s *Sites) Site(ctx context.Context, tenantID, siteID string) (registry.Site, error) {
	return s.cache.Get(ctx, tenantID, siteID, func(ctx context.Context) (registry.Site, error) {
		return s.reg.Site(ctx, tenantID, siteID)
	})
}
