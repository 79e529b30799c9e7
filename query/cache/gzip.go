package cache

import (
	"bytes"
	"compress/gzip"
	"context"
	"sync"
	"sync/atomic"
)

// GzipLevel is the compression of the gzip forms a result cache keeps. Each is made once per
// cached answer, so size matters more than speed: on a DAYS year answer (168 KiB of JSON) the
// default level gives 6.3 % of the plain size against 8.0 % for gzip.BestSpeed, for a few
// milliseconds more, paid once; gzip.BestCompression saves 5 % more for 3× the time.
const GzipLevel = gzip.DefaultCompression

// entry is a cached answer and, once a client asked for it, its gzip form.
type entry struct {
	key  string // its key in the LRU ("" for an entry that was not kept)
	body []byte
	src  *source      // how to compute it again (nil: an entry that was not kept)
	used atomic.Int64 // Unix nanoseconds of the last request it answered (or its source's, refreshed)
	gone bool         // evicted: never held for refresh again (guarded by the refresher's mu)

	mu      sync.Mutex
	cached  bool   // in the LRU with its bytes counted (false once evicted)
	dropped bool   // removed by DropSite or retired, not evicted for room
	gzip    []byte // nil until first asked for
}

// leave marks the entry evicted and returns the bytes of it that were counted, and whether it
// was dropped rather than evicted.
func (e *entry) leave() (held int64, dropped bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cached = false
	return int64(cap(e.body) + cap(e.gzip)), e.dropped
}

// drop marks the entry removed by DropSite before it leaves the LRU.
func (e *entry) drop() {
	e.mu.Lock()
	e.dropped = true
	e.mu.Unlock()
}

// A GzipSlot lets the HTTP layer send a cached answer gzip-encoded without compressing it for
// every request: put in a request's context (WithGzipSlot), it receives the entry that
// Results.Get answered from, and Gzip gives that entry's compressed form.
type GzipSlot struct {
	c *Results
	e *entry
}

type gzipSlotKey struct{}

// WithGzipSlot returns ctx carrying s: every Results.Get under it records its answer in s.
func WithGzipSlot(ctx context.Context, s *GzipSlot) context.Context {
	return context.WithValue(ctx, gzipSlotKey{}, s)
}

func fillGzipSlot(ctx context.Context, c *Results, e *entry) {
	if s, ok := ctx.Value(gzipSlotKey{}).(*GzipSlot); ok && s != nil {
		s.c, s.e = c, e
	}
}

// Gzip returns the gzip form of body when body is the answer the slot last received and that
// answer is in a cache: made at GzipLevel on the first call for the entry and kept beside it
// (counted in the cache's byte bound), so later requests only copy it. ok is false for any
// other body, or an answer that was not kept: the caller compresses it itself.
func (s *GzipSlot) Gzip(body []byte) (gz []byte, ok bool) {
	e := s.e
	if e == nil || len(body) == 0 || len(body) != len(e.body) || &body[0] != &e.body[0] {
		return nil, false
	}
	e.mu.Lock()
	if e.gzip != nil || !e.cached {
		gz := e.gzip
		e.mu.Unlock()
		return gz, gz != nil
	}
	gz = compress(e.body) // under the lock: concurrent first requests wait for this one
	e.gzip = gz
	s.c.count(int64(cap(gz))) // under the lock, so that an eviction subtracts what was added
	e.mu.Unlock()
	s.c.trim() // not under it: this may evict e itself
	return gz, true
}

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, GzipLevel) // error only for an invalid level
	return w
}}

// compress returns body's gzip form, in a slice of its own length.
func compress(body []byte) []byte {
	var buf bytes.Buffer
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(&buf)
	_, _ = w.Write(body) // a bytes.Buffer does not fail
	_ = w.Close()
	gzipWriters.Put(w)
	return bytes.Clone(buf.Bytes())
}
