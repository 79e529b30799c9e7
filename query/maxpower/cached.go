package maxpower

import (
	"context"

	"energy/query/cache"
	"energy/schema/registry"
)

// cacheMetrics are the series of the max-power result cache.
var cacheMetrics = cache.NewMetrics("energy_max_power_cache", "Max-power answers")

// Cached is the engine behind a result cache of JSON answers, keyed by tenant, site, request
// and the site's and tenant's data versions: a new reading of the site, or a change of its
// tariff, makes the cached answers unreachable.
type Cached struct {
	*cache.Results
	engine *Engine
}

// NewCached wraps engine in a cache of at most maxEntries answers and about maxBytes bytes.
func NewCached(engine *Engine, versions *registry.DataVersions, maxEntries int, maxBytes int64) *Cached {
	return &Cached{Results: cache.NewResults(versions, maxEntries, maxBytes, cacheMetrics), engine: engine}
}

// Resolve gives the site and the validated request of a request that missed the cache; its
// errors are returned as they are and never cached.
type Resolve func(ctx context.Context) (registry.Site, Request, error)

// JSON returns the answer to request (a normalised text that, with tenant and site, determines
// the answer while their data do not change) and whether it came from the cache.
func (c *Cached) JSON(ctx context.Context, tenantID, siteID, request string, resolve Resolve) (body []byte, hit bool, err error) {
	return cache.JSON(ctx, c.Results, tenantID, siteID, request, resolve, c.engine.Compute)
}
