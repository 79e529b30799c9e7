// Package cache holds what the analyses share to answer fast: an LRU of encoded answers kept
// coherent with the sites' data versions (Results), and short-lived caches of the reference
// records every answer reads (Reference, Sites).
package cache

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"energy/schema/registry"
)

// Default bounds of a result cache.
const (
	DefaultEntries = 10000
	DefaultBytes   = 256 << 20
)

// entryOverhead approximates what an entry costs besides its key and body (list element,
// map slot, slice headers).
const entryOverhead = 160

// Metrics are the Prometheus series a result cache keeps up to date; each analysis registers
// its own (named after its answers) and passes them to every cache it makes.
type Metrics struct {
	Hits, Misses, Evictions     prometheus.Counter
	Refreshes, RefreshesDropped prometheus.Counter
	Entries, Bytes              prometheus.Gauge
}

// Results is an LRU of encoded answers. An answer is keyed by tenant, site, the normalised
// request and the site's data version (registry.DataVersions, bumped by ingest after every
// insert touching the site) plus the tenant's reference version (Get(tenant, ""), for site and
// tariff changes): once the site's data changes, the next request misses and recomputes, so a
// cached answer is never stale. Superseded entries are never hit again and age out of the LRU.
//
// The cache holds encoded bytes, not results: a hit costs a map lookup and a write, no encoding.
//
// Answers requested within RefreshWindow are computed again when their data changes
// (refresh.go), so that a dashboard polling them finds the new answer in the cache: before the
// change of a site's data is counted (its rows are written by then) for up to preparedMax of
// them, after it in the background for the others, for the changes of other processes and for
// those of the tenant's reference data.
type Results struct {
	versions *registry.DataVersions
	metrics  Metrics
	lru      *lru.Cache[string, *entry] // nil: caching disabled
	maxBytes int64
	bytes    atomic.Int64
	flight   singleflight.Group
	// mu orders a store, which checks that its key is still current, against a DropSite, which
	// moved the site's version first: an answer is either dropped or never stored.
	mu      sync.Mutex
	refresh refresher

	hits, misses, evictions atomic.Uint64
}

// NewResults returns a cache of at most maxEntries answers and about maxBytes bytes.
// maxEntries < 1 disables caching (every request computes); maxBytes < 1 means DefaultBytes.
func NewResults(versions *registry.DataVersions, maxEntries int, maxBytes int64, m Metrics) *Results {
	c := &Results{versions: versions, metrics: m, maxBytes: maxBytes}
	if c.maxBytes < 1 {
		c.maxBytes = DefaultBytes
	}
	if maxEntries > 0 {
		c.lru, _ = lru.NewWithEvict(maxEntries, c.evicted) // error only for size < 1
		c.refresh.held = map[[2]string]map[string]*entry{}
		versions.OnErased(c.DropSite)
		versions.OnPrepare(c.prepare)
		versions.OnChange(c.changed)
	}
	return c
}

func (c *Results) evicted(key string, e *entry) {
	c.refresh.forget(e)
	held, dropped := e.leave()
	n := int64(len(key)+entryOverhead) + held
	c.bytes.Add(-n)
	if !dropped {
		c.evictions.Add(1)
		c.metrics.Evictions.Inc()
	}
	c.metrics.Entries.Dec()
	c.metrics.Bytes.Sub(float64(n))
}

// Get returns the answer to request (a normalised text that, with tenant and site, determines
// the answer as long as the site's data does not change) and whether it came from the cache.
// On a miss compute makes the encoded answer, which is stored under the data version read
// before computing (an ingest during the computation makes the next request miss again).
// Errors of compute are returned as they are and never cached. Concurrent misses of one key
// compute once, and join a background refresh of it under way. A GzipSlot in ctx receives the
// stored entry (see WithGzipSlot).
//
// The cache keeps compute, with ctx's values (not its end), to refresh the answer after a
// change of the site's data: compute must depend on nothing else that changes.
func (c *Results) Get(ctx context.Context, tenantID, siteID, request string, compute func(context.Context) ([]byte, error)) (body []byte, hit bool, err error) {
	key := c.key(tenantID, siteID, request)
	if c.lru != nil {
		if e, ok := c.lru.Get(key); ok {
			c.hits.Add(1)
			c.metrics.Hits.Inc()
			e.used.Store(time.Now().UnixNano())
			fillGzipSlot(ctx, c, e)
			return e.body, true, nil
		}
	}
	c.misses.Add(1)
	c.metrics.Misses.Inc()
	src := &source{tenantID: tenantID, siteID: siteID, request: request, ctx: detach(ctx), compute: compute}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		b, err := compute(ctx)
		if err != nil {
			return nil, err
		}
		return c.store(key, b, src, time.Now().UnixNano()), nil
	})
	if err != nil {
		return nil, false, err
	}
	e := v.(*entry)
	fillGzipSlot(ctx, c, e)
	return e.body, false, nil
}

// key is the key of the answer under the current versions.
func (c *Results) key(tenantID, siteID, request string) string {
	return keyAt(tenantID, siteID, c.versions.Get(tenantID, siteID), c.versions.Get(tenantID, ""), request)
}

// keyAt joins the parts with a byte that none of them holds (ids are [A-Za-z0-9._:-]).
func keyAt(tenantID, siteID string, siteVersion, tenantVersion uint64, request string) string {
	var b []byte
	b = append(b, tenantID...)
	b = append(b, 0)
	b = append(b, siteID...)
	b = append(b, 0)
	b = strconv.AppendUint(b, siteVersion, 10)
	b = append(b, 0)
	b = strconv.AppendUint(b, tenantVersion, 10)
	b = append(b, 0)
	b = append(b, request...)
	return string(b)
}

// store keeps body under key, computed by src and last requested at used (Unix nanoseconds),
// and returns its entry; one that is not kept (caching disabled, too large, or the site's data
// changed while it was computed: key is no longer the current key of the request) is returned
// detached.
func (c *Results) store(key string, body []byte, src *source, used int64) *entry {
	e := &entry{body: body}
	e.used.Store(used)
	if c.lru == nil {
		return e
	}
	n := int64(len(key) + cap(body) + entryOverhead)
	if n > c.maxBytes/4 { // one answer never takes over the cache
		return e
	}
	c.mu.Lock()
	if c.key(src.tenantID, src.siteID, src.request) != key {
		c.mu.Unlock()
		return e
	}
	e.cached, e.src, e.key = true, src, key // before the entry is in the LRU, where evicted reads them
	if found, _ := c.lru.ContainsOrAdd(key, e); found {
		c.mu.Unlock()
		e.cached = false
		return e
	}
	c.mu.Unlock()
	superseded := c.refresh.hold(e)
	c.count(n)
	c.metrics.Entries.Inc()
	if superseded != nil {
		c.retire(superseded)
	}
	c.trim()
	return e
}

// retire removes an entry that a newer answer to its request replaced: its key holds versions
// that have moved, so no request reaches it again. Like DropSite's, the removal is not counted
// as an eviction.
func (c *Results) retire(e *entry) {
	if c.lru == nil || e.key == "" {
		return
	}
	e.drop()
	c.mu.Lock()
	if cur, ok := c.lru.Peek(e.key); ok && cur == e {
		c.lru.Remove(e.key)
	}
	c.mu.Unlock()
}

// count adds n bytes to what the cache holds.
func (c *Results) count(n int64) {
	c.bytes.Add(n)
	c.metrics.Bytes.Add(float64(n))
}

// trim evicts the oldest answers while the cache holds more than its bound.
func (c *Results) trim() {
	for c.bytes.Load() > c.maxBytes {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// DropSite removes every answer about the site, whatever the versions it was computed under
// (an erasure: registry.DataVersions.Erased calls it on every energyd). Removed answers do not
// count as evictions.
func (c *Results) DropSite(tenantID, siteID string) {
	if c.lru == nil || siteID == "" {
		return
	}
	c.refresh.dropSite(tenantID, siteID)
	prefix := sitePrefix(tenantID, siteID)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.lru.Keys() {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if e, ok := c.lru.Peek(k); ok {
			e.drop()
		}
		c.lru.Remove(k)
	}
}

// SiteEntries counts the answers about the site the cache holds, under any version.
func (c *Results) SiteEntries(tenantID, siteID string) int {
	if c.lru == nil {
		return 0
	}
	prefix, n := sitePrefix(tenantID, siteID), 0
	for _, k := range c.lru.Keys() {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// sitePrefix starts every key of the site's answers (see key).
func sitePrefix(tenantID, siteID string) string { return tenantID + "\x00" + siteID + "\x00" }

// Purge empties the cache (benchmarks measure cold answers with it).
func (c *Results) Purge() {
	if c.lru == nil {
		return
	}
	c.refresh.dropQueue()
	for {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			return
		}
	}
}

// Stats are a cache's counters since it was made.
type Stats struct {
	Hits, Misses, Evictions     uint64
	Refreshes, RefreshesDropped uint64
	Entries                     int
	Bytes                       int64
}

// Stats returns the cache's counters.
func (c *Results) Stats() Stats {
	s := Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Bytes: c.bytes.Load(),
		Refreshes: c.refresh.done.Load(), RefreshesDropped: c.refresh.dropped.Load()}
	if c.lru != nil {
		s.Entries = c.lru.Len()
	}
	return s
}
