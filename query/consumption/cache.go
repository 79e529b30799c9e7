package consumption

import (
	"context"

	"energy/query/cache"
	"energy/schema/registry"
)

// cacheMetrics are the series of every consumption result cache.
var cacheMetrics = cache.NewMetrics("energy_consumption_cache", "Consumption answers")

// Computer computes consumption answers; *Engine is the real one.
type Computer interface {
	Compute(ctx context.Context, site registry.Site, req Request) (*ConsumptionResult, error)
}

// Cached is the consumption engine behind a result cache of JSON answers (cache.Results: keyed
// by tenant, site, request and the site's data version, so a cached answer is never stale).
type Cached struct {
	*cache.Results
	engine Computer
}

// NewCached wraps engine in a cache of at most maxEntries answers and about maxBytes bytes.
// maxEntries < 1 disables caching (every request computes); maxBytes < 1 means
// cache.DefaultBytes.
func NewCached(engine Computer, versions *registry.DataVersions, maxEntries int, maxBytes int64) *Cached {
	return &Cached{Results: cache.NewResults(versions, maxEntries, maxBytes, cacheMetrics), engine: engine}
}

// Resolve loads what the engine needs for a request that missed the cache: the site and the
// validated request. Its errors (unknown site, invalid parameters) are returned as they are
// and never cached.
type Resolve func(ctx context.Context) (registry.Site, Request, error)

// JSON returns the JSON answer of request (a normalised text that, with tenant and site,
// determines the answer as long as the site's data does not change) and whether it came from
// the cache. On a miss resolve gives the site and request and the engine computes.
func (c *Cached) JSON(ctx context.Context, tenantID, siteID, request string, resolve Resolve) (body []byte, hit bool, err error) {
	return c.Get(ctx, tenantID, siteID, request, func(ctx context.Context) ([]byte, error) {
		site, req, err := resolve(ctx)
		if err != nil {
			return nil, err
		}
		res, err := c.engine.Compute(ctx, site, req)
		if err != nil {
			return nil, err
		}
		return EncodeJSON(res)
	})
}
