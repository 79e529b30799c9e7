package cache

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// RefreshWindow is how recently an answer must have been requested for a change of its data to
// compute it again ahead of the next request: dashboards poll far more often, and an answer
// nobody asks for any more is left to age out instead of costing a computation per ingest.
// Benchmarks that time the computation following a change set it to 0 (no refresh) before
// making their caches.
var RefreshWindow = 5 * time.Minute

// refreshQueueLen bounds the refreshes one cache has waiting. Beyond it a refresh is dropped:
// the next request for that answer computes it, as without refresh.
const refreshQueueLen = 1000

// refreshAttempts bounds the computations of one refresh whose data changes again while it is
// computed (each result is stored under the version read before computing it, so a moved
// version makes it unreachable, never stale).
const refreshAttempts = 3

// refreshTimeout bounds one computation of a refresh.
const refreshTimeout = time.Minute

// refreshSlots is how many refreshes run at once in the process, all caches together: one, so
// that refreshes take at most about one processor from ingest and requests.
var refreshSlots = make(chan struct{}, 1)

// source is how an answer was computed: what Results.Get received, the request's context kept
// for its values only.
type source struct {
	tenantID, siteID, request string
	ctx                       context.Context
	compute                   func(context.Context) ([]byte, error)
}

// detach returns ctx's values for a refresh: not its end (the request is over by then), nor its
// GzipSlot (which would keep the request's answer alive with the source).
func detach(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), gzipSlotKey{}, (*GzipSlot)(nil))
}

// queueKey names the answer, whatever its version.
func (s *source) queueKey() string { return s.tenantID + "\x00" + s.siteID + "\x00" + s.request }

// refresher is the bookkeeping of a result cache's refreshes.
type refresher struct {
	mu       sync.Mutex
	held     map[[2]string]map[string]*entry // the newest entry kept of each answer, by tenant and site, then request
	queue    []*entry                        // invalidated entries to compute again, oldest change first
	queued   map[string]bool                 // queueKey of the entries in queue
	draining bool                            // a goroutine works through queue
	drops    map[[2]string]uint64            // DropSite calls by tenant and site (erasures)

	done, dropped atomic.Uint64
}

// hold records e, just kept, as its answer's newest entry, unless it was evicted meanwhile, and
// returns the entry it replaces (nil if none).
func (r *refresher) hold(e *entry) (replaced *entry) {
	k := [2]string{e.src.tenantID, e.src.siteID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.gone {
		return nil
	}
	m := r.held[k]
	if m == nil {
		m = map[string]*entry{}
		r.held[k] = m
	}
	replaced = m[e.src.request]
	m[e.src.request] = e
	if replaced == e {
		return nil
	}
	return replaced
}

// forget drops e, evicted, unless a newer entry of its answer replaced it.
func (r *refresher) forget(e *entry) {
	if e.src == nil {
		return
	}
	k := [2]string{e.src.tenantID, e.src.siteID}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.gone = true
	if m := r.held[k]; m[e.src.request] == e {
		delete(m, e.src.request)
		if len(m) == 0 {
			delete(r.held, k)
		}
	}
}

// changed is told by the data versions that the site's version moved (site "": the tenant's
// reference version, which every answer of the tenant reads): the entries of the answers it
// invalidates that were requested within RefreshWindow are queued to be computed again, those
// requested longest ago first.
func (c *Results) changed(tenantID, siteID string) {
	r := &c.refresh
	since := time.Now().Add(-RefreshWindow).UnixNano()
	r.mu.Lock()
	defer r.mu.Unlock()
	var stale []*entry
	for k, m := range r.held {
		if k[0] != tenantID || (siteID != "" && k[1] != siteID) {
			continue
		}
		for _, e := range m {
			if e.used.Load() >= since {
				stale = append(stale, e)
			}
		}
		delete(r.held, k)
	}
	slices.SortFunc(stale, func(a, b *entry) int { return cmp.Compare(a.used.Load(), b.used.Load()) })
	if r.queued == nil {
		r.queued = map[string]bool{}
	}
	for _, e := range stale {
		qk := e.src.queueKey()
		if r.queued[qk] { // already waiting: it computes under the version of its turn
			continue
		}
		if len(r.queue) >= refreshQueueLen {
			r.dropped.Add(1)
			c.metrics.RefreshesDropped.Inc()
			continue
		}
		r.queue = append(r.queue, e)
		r.queued[qk] = true
	}
	if len(r.queue) > 0 && !r.draining {
		r.draining = true
		go c.drain()
	}
}

// drain computes the queued refreshes one after the other, each in one of refreshSlots, until
// the queue is empty.
func (c *Results) drain() {
	r := &c.refresh
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.draining = false
			r.mu.Unlock()
			return
		}
		e := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		delete(r.queued, e.src.queueKey())
		r.mu.Unlock()

		refreshSlots <- struct{}{}
		ok := c.recompute(e)
		<-refreshSlots
		if ok {
			r.done.Add(1)
			c.metrics.Refreshes.Inc()
		} else {
			r.dropped.Add(1)
			c.metrics.RefreshesDropped.Inc()
		}
	}
}

// recompute computes e's answer under the current versions and keeps it, joined with any
// request computing the same key, and reports whether the cache now holds the answer of the
// current versions. A version that moves during the computation makes it compute again.
func (c *Results) recompute(e *entry) bool {
	src := e.src
	for range refreshAttempts {
		key := c.key(src.tenantID, src.siteID, src.request)
		if held, ok := c.lru.Peek(key); ok { // a request computed it meanwhile
			if superseded := c.refresh.hold(held); superseded != nil { // again: changed dropped it if it came before the change's turn
				c.retire(superseded)
			}
			return true
		}
		drops := c.refresh.dropCount(src.tenantID, src.siteID)
		ctx, cancel := context.WithTimeout(src.ctx, refreshTimeout)
		_, err, _ := c.flight.Do(key, func() (any, error) {
			b, err := src.compute(ctx)
			if err != nil {
				return nil, err
			}
			stored := c.store(key, b, src, e.used.Load())
			// The site was erased meanwhile: the answer, computed with the site as it was, is
			// not kept. (DropSite counts before it removes, and this stores before it reads the
			// count: either this sees the count move, or DropSite removes what was stored.)
			if c.refresh.dropCount(src.tenantID, src.siteID) != drops {
				c.retire(stored)
				return nil, errSiteDropped
			}
			if stored != e { // e's versions have moved: no request reaches it again
				c.retire(e)
			}
			return stored, nil
		})
		cancel()
		if err != nil {
			return false
		}
		if c.key(src.tenantID, src.siteID, src.request) == key {
			return true
		}
	}
	return false
}

// dropQueue forgets the refreshes waiting (Purge: a cold cache stays cold).
func (r *refresher) dropQueue() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.queue)
	r.queue = r.queue[:0]
	clear(r.queued)
}

// preparedMax bounds the answers one cache computes before a change of a site's data is counted
// (the ingest job that made it waits for them), and preparedTimeout their time; the others are
// refreshed after it.
const (
	preparedMax     = 4
	preparedTimeout = 5 * time.Second
)

// prepare is asked by the data versions before this process counts a change of a site's data,
// whose rows are written by then: it computes the site's answers requested most recently (within
// RefreshWindow, at most preparedMax) under the version the change will give, and stores them
// once the change is counted, so that no poll after it misses. They are never stale: they are
// served only under the version read plus one, which is then the version this change gave
// (versions only grow), so every change counted before it was counted before the computation
// began, its rows written. If another change came between (a watched one), that version is
// already past: the answers are not stored, and the refreshes after the change make them.
// Computing before the version moves, an answer must read the data, never another answer cached
// under the site's version (which would be the old one).
func (c *Results) prepare(tenantID, siteID string) (counted func()) {
	r := &c.refresh
	since := time.Now().Add(-RefreshWindow).UnixNano()
	r.mu.Lock()
	var polled []*entry
	for _, e := range r.held[[2]string{tenantID, siteID}] {
		if e.used.Load() >= since {
			polled = append(polled, e)
		}
	}
	r.mu.Unlock()
	if len(polled) == 0 {
		return nil
	}
	slices.SortFunc(polled, func(a, b *entry) int { return cmp.Compare(b.used.Load(), a.used.Load()) }) // most recent first
	polled = polled[:min(len(polled), preparedMax)]

	next, tenantVersion := c.versions.Get(tenantID, siteID)+1, c.versions.Get(tenantID, "")
	type ready struct {
		key  string
		body []byte
		e    *entry
	}
	var made []ready
	deadline := time.Now().Add(preparedTimeout)
	refreshSlots <- struct{}{}
	for _, e := range polled {
		ctx, cancel := context.WithDeadline(e.src.ctx, deadline)
		b, err := e.src.compute(ctx)
		cancel()
		if err == nil {
			made = append(made, ready{keyAt(tenantID, siteID, next, tenantVersion, e.src.request), b, e})
		}
	}
	<-refreshSlots
	return func() {
		if c.versions.Get(tenantID, siteID) != next || c.versions.Get(tenantID, "") != tenantVersion {
			return
		}
		for _, m := range made {
			c.store(m.key, m.body, m.e.src, m.e.used.Load())
		}
	}
}

// errSiteDropped ends a refresh whose site was erased while it computed.
var errSiteDropped = errors.New("the site's answers were dropped during the refresh")

// dropCount is how many times DropSite was called for the site.
func (r *refresher) dropCount(tenantID, siteID string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.drops[[2]string{tenantID, siteID}]
}

// dropSite forgets the site's refreshes waiting (an erasure: its answers are not computed again)
// and counts the drop, so that a refresh under way does not keep its answer.
func (r *refresher) dropSite(tenantID, siteID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drops == nil {
		r.drops = map[[2]string]uint64{}
	}
	r.drops[[2]string{tenantID, siteID}]++
	kept := r.queue[:0]
	for _, e := range r.queue {
		if e.src.tenantID == tenantID && e.src.siteID == siteID {
			delete(r.queued, e.src.queueKey())
			continue
		}
		kept = append(kept, e)
	}
	clear(r.queue[len(kept):])
	r.queue = kept
}
