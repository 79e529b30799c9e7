package query

import (
	"context"
	"strconv"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"golang.org/x/sync/singleflight"

	"energy/schema/registry"
)

var (
	cacheHits = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_consumption_cache_hits_total",
		Help: "Consumption answers served from the result cache.",
	})
	cacheMisses = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_consumption_cache_misses_total",
		Help: "Consumption answers computed by the engine (not in the cache, or the site's data changed).",
	})
	cacheEvictions = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_consumption_cache_evictions_total",
		Help: "Consumption answers dropped from the result cache to stay within its entry and byte bounds.",
	})
	cacheEntries = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_consumption_cache_entries",
		Help: "Consumption answers held in the result cache.",
	})
	cacheBytes = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_consumption_cache_bytes",
		Help: "Approximate memory held by the consumption result cache (encoded answers and keys).",
	})
)

// ConsumptionEngine computes consumption answers; *Consumptions is the real one.
type ConsumptionEngine interface {
	Compute(ctx context.Context, site registry.Site, req ConsumptionRequest) (*ConsumptionResult, error)
}

// Default bounds of the result cache.
const (
	DefaultCacheEntries = 10000
	DefaultCacheBytes   = 256 << 20
)

// entryOverhead approximates what an entry costs besides its key and body (list element,
// map slot, slice headers).
const entryOverhead = 160

// CachedConsumptions is the consumption engine behind an LRU of encoded answers. An answer is
// keyed by tenant, site, the normalised request and the site's data version
// (registry.DataVersions, bumped by ingest after every insert touching the site) plus the
// tenant's reference version (Get(tenant, ""), for site and tariff changes): once the site's
// data changes, the next request misses and recomputes, so a cached answer is never stale.
// Superseded entries are never hit again and age out of the LRU.
//
// The cache holds JSON bytes, not results: a hit costs a map lookup and a write, no encoding.
type CachedConsumptions struct {
	engine   ConsumptionEngine
	versions *registry.DataVersions
	lru      *lru.Cache[string, []byte] // nil: caching disabled
	maxBytes int64
	bytes    atomic.Int64
	flight   singleflight.Group

	hits, misses, evictions atomic.Uint64
}

// NewCachedConsumptions wraps engine in a cache of at most maxEntries answers and about maxBytes
// bytes. maxEntries < 1 disables caching (every request computes); maxBytes < 1 means
// DefaultCacheBytes.
func NewCachedConsumptions(engine ConsumptionEngine, versions *registry.DataVersions, maxEntries int, maxBytes int64) *CachedConsumptions {
	c := &CachedConsumptions{engine: engine, versions: versions, maxBytes: maxBytes}
	if c.maxBytes < 1 {
		c.maxBytes = DefaultCacheBytes
	}
	if maxEntries > 0 {
		c.lru, _ = lru.NewWithEvict(maxEntries, c.evicted) // error only for size < 1
	}
	return c
}

func (c *CachedConsumptions) evicted(key string, body []byte) {
	n := entrySize(key, body)
	c.bytes.Add(-n)
	c.evictions.Add(1)
	cacheEvictions.Inc()
	cacheEntries.Dec()
	cacheBytes.Sub(float64(n))
}

func entrySize(key string, body []byte) int64 { return int64(len(key) + cap(body) + entryOverhead) }

// Resolve loads what the engine needs for a request that missed the cache: the site and the
// validated request. Its errors (unknown site, invalid parameters) are returned as they are
// and never cached.
type Resolve func(ctx context.Context) (registry.Site, ConsumptionRequest, error)

// JSON returns the JSON answer of request (a normalised text that, with tenant and site,
// determines the answer as long as the site's data does not change) and whether it came from
// the cache. On a miss resolve gives the site and request, the engine computes, and the
// encoded answer is stored under the data version read before computing (an ingest during
// the computation makes the next request miss again). Concurrent misses of one key compute
// once.
func (c *CachedConsumptions) JSON(ctx context.Context, tenantID, siteID, request string, resolve Resolve) (body []byte, hit bool, err error) {
	key := c.key(tenantID, siteID, request)
	if c.lru != nil {
		if b, ok := c.lru.Get(key); ok {
			c.hits.Add(1)
			cacheHits.Inc()
			return b, true, nil
		}
	}
	c.misses.Add(1)
	cacheMisses.Inc()
	v, err, _ := c.flight.Do(key, func() (any, error) {
		site, req, err := resolve(ctx)
		if err != nil {
			return nil, err
		}
		res, err := c.engine.Compute(ctx, site, req)
		if err != nil {
			return nil, err
		}
		b, err := EncodeJSON(res)
		if err != nil {
			return nil, err
		}
		c.store(key, b)
		return b, nil
	})
	if err != nil {
		return nil, false, err
	}
	return v.([]byte), false, nil
}

// key joins the parts with a byte that none of them holds (ids are [A-Za-z0-9._:-]).
func (c *CachedConsumptions) key(tenantID, siteID, request string) string {
	var b []byte
	b = append(b, tenantID...)
	b = append(b, 0)
	b = append(b, siteID...)
	b = append(b, 0)
	b = strconv.AppendUint(b, c.versions.Get(tenantID, siteID), 10)
	b = append(b, 0)
	b = strconv.AppendUint(b, c.versions.Get(tenantID, ""), 10)
	b = append(b, 0)
	b = append(b, request...)
	return string(b)
}

func (c *CachedConsumptions) store(key string, body []byte) {
	if c.lru == nil {
		return
	}
	n := entrySize(key, body)
	if n > c.maxBytes/4 { // one answer never takes over the cache
		return
	}
	if found, _ := c.lru.ContainsOrAdd(key, body); found {
		return
	}
	c.bytes.Add(n)
	cacheEntries.Inc()
	cacheBytes.Add(float64(n))
	for c.bytes.Load() > c.maxBytes {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// Purge empties the cache (benchmarks measure cold answers with it).
func (c *CachedConsumptions) Purge() {
	if c.lru == nil {
		return
	}
	for {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			return
		}
	}
}

// CacheStats are the cache's counters since it was made.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Entries                 int
	Bytes                   int64
}

// Stats returns the cache's counters.
func (c *CachedConsumptions) Stats() CacheStats {
	s := CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Bytes: c.bytes.Load()}
	if c.lru != nil {
		s.Entries = c.lru.Len()
	}
	return s
}
