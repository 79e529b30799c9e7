package comparison

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"energy/query/cache"
	"energy/schema/registry"
)

// cacheMetrics are the series of the comparison result cache.
var cacheMetrics = cache.NewMetrics("energy_comparison_cache", "Yearly comparison answers")

// Comparisons answers yearly comparisons through a result cache of JSON answers, invalidated
// like consumption answers: an ingest touching the site, or a site, tariff or weather change of
// its tenant (a weather PUT bumps the tenant's reference version), makes the next request
// recompute.
type Comparisons struct {
	*cache.Results
	engine *Engine
}

// NewComparisons wraps e in a cache of at most maxEntries answers and about maxBytes bytes;
// maxEntries < 1 disables caching.
func NewComparisons(e *Engine, versions *registry.DataVersions, maxEntries int, maxBytes int64) *Comparisons {
	return &Comparisons{Results: cache.NewResults(versions, maxEntries, maxBytes, cacheMetrics), engine: e}
}

// JSON returns the JSON array of the comparisons of years (as ParseYears returned them at now)
// and whether it came from the cache. The answer depends on the years and, through the ongoing
// year's last complete month, on the site's current month, which the key holds.
func (c *Comparisons) JSON(ctx context.Context, site registry.Site, years []int, now time.Time) ([]byte, bool, error) {
	request := now.In(site.Location()).Format("2006-01") + "|"
	for i, y := range years {
		if i > 0 {
			request += ","
		}
		request += strconv.Itoa(y)
	}
	return c.Get(ctx, site.TenantID, site.SiteID, request, func(ctx context.Context) ([]byte, error) {
		items, err := c.engine.Compare(ctx, site, years, now)
		if err != nil {
			return nil, err
		}
		return encodeJSON(items)
	})
}

// encodeJSON writes the answer as the HTTP layer's default encoder did before it was cached:
// no HTML escaping, a final newline.
func encodeJSON(items []YearComparison) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(items); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
