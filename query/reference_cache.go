package query

import (
	"context"
	"strconv"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"energy/schema/registry"
)

// Bounds of the caches of sites and tariffs read by computed answers.
const (
	referenceCacheEntries = 10000
	// ReferenceCacheTTL bounds how long an edit made by another process (another energyd, or
	// energyctl) may go unseen; edits through this process's registry are seen at once.
	ReferenceCacheTTL = 5 * time.Second
)

// referenceCache keeps reference records (sites, tariffs) that every computed answer reads,
// saving a ClickHouse round trip (a FINAL read of a small table) per answer. An entry is keyed
// by the tenant's reference version (registry.DataVersions Get(tenant, ""), bumped by PutSite
// and PutTariff), so this process's edits are seen by the next request, and it expires after
// ReferenceCacheTTL. Only records found are kept: a missing one is looked up every time.
type referenceCache[V any] struct {
	lru      *lru.Cache[string, referenceEntry[V]]
	versions *registry.DataVersions
	now      func() time.Time
}

type referenceEntry[V any] struct {
	value  V
	loaded time.Time
}

func newReferenceCache[V any](versions *registry.DataVersions) *referenceCache[V] {
	c, err := lru.New[string, referenceEntry[V]](referenceCacheEntries)
	if err != nil {
		panic(err) // only for a size < 1
	}
	return &referenceCache[V]{lru: c, versions: versions, now: time.Now}
}

// get returns the record id of the tenant, from the cache or from load.
func (c *referenceCache[V]) get(ctx context.Context, tenantID, id string, load func(context.Context) (V, error)) (V, error) {
	// The version is read before loading: an edit during the load bumps it, and the entry
	// stored under the old version is never read again.
	key := tenantID + "\x00" + id + "\x00" + strconv.FormatUint(c.versions.Get(tenantID, ""), 10)
	now := c.now()
	if e, ok := c.lru.Get(key); ok && now.Sub(e.loaded) < ReferenceCacheTTL {
		return e.value, nil
	}
	v, err := load(ctx)
	if err != nil {
		return v, err
	}
	c.lru.Add(key, referenceEntry[V]{v, now})
	return v, nil
}

// SiteCache reads sites through a short-lived cache (see referenceCache): the consumption
// endpoint looks its site up for every computed answer.
type SiteCache struct {
	reg   *registry.Store
	cache *referenceCache[registry.Site]
}

// NewSiteCache returns a cache of reg's sites.
func NewSiteCache(reg *registry.Store) *SiteCache {
	return &SiteCache{reg: reg, cache: newReferenceCache[registry.Site](reg.Versions)}
}

// Site is reg.Site, cached: registry.ErrNotFound when the tenant has no such site.
func (s *SiteCache) Site(ctx context.Context, tenantID, siteID string) (registry.Site, error) {
	return s.cache.get(ctx, tenantID, siteID, func(ctx context.Context) (registry.Site, error) {
		return s.reg.Site(ctx, tenantID, siteID)
	})
}
