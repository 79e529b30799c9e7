package cache

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"energy/schema/registry"
)

// unregisteredMetrics are series of a cache in a test, kept out of the default registry.
func unregisteredMetrics() Metrics {
	return Metrics{
		Hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "hits"}), Misses: prometheus.NewCounter(prometheus.CounterOpts{Name: "misses"}),
		Evictions: prometheus.NewCounter(prometheus.CounterOpts{Name: "evictions"}),
		Refreshes: prometheus.NewCounter(prometheus.CounterOpts{Name: "refreshes"}), RefreshesDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "refreshes_dropped"}),
		Entries: prometheus.NewGauge(prometheus.GaugeOpts{Name: "entries"}), Bytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "bytes"}),
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A cached answer's gzip form is made once, at the first request that asks for it, kept beside
// it within the byte bound, and leaves with it.
func TestGzipFormKeptOnceAndCounted(t *testing.T) {
	c := NewResults(registry.NewDataVersions(), 10, 0, unregisteredMetrics())
	answer := []byte(strings.Repeat(`{"energyMeter":{"total":24984}},`, 200))
	computes := 0
	compute := func(context.Context) ([]byte, error) { computes++; return bytes.Clone(answer), nil }

	var slot GzipSlot
	ctx := WithGzipSlot(context.Background(), &slot)
	body, hit, err := c.Get(ctx, "acme", "S1", "DAYS", compute)
	if err != nil || hit {
		t.Fatalf("first Get: hit %v err %v", hit, err)
	}
	plainBytes := c.Stats().Bytes
	gz, ok := slot.Gzip(body)
	if !ok || !bytes.Equal(gunzip(t, gz), answer) {
		t.Fatalf("gzip form of the computed answer: ok %v", ok)
	}
	if got := c.Stats().Bytes; got != plainBytes+int64(cap(gz)) {
		t.Errorf("cache bytes %d after the gzip form, want %d + %d", got, plainBytes, cap(gz))
	}

	var slot2 GzipSlot
	body2, hit, _ := c.Get(WithGzipSlot(context.Background(), &slot2), "acme", "S1", "DAYS", compute)
	gz2, ok := slot2.Gzip(body2)
	if !hit || !ok || &gz2[0] != &gz[0] || computes != 1 {
		t.Errorf("second request: hit %v ok %v, same gzip bytes %v, computes %d", hit, ok, ok && &gz2[0] == &gz[0], computes)
	}
	if got := c.Stats().Bytes; got != plainBytes+int64(cap(gz)) {
		t.Errorf("cache bytes %d after a second gzip request, want unchanged %d", got, plainBytes+int64(cap(gz)))
	}
	// Another body (a copy, or another answer) is not the slot's answer.
	if _, ok := slot2.Gzip(bytes.Clone(body2)); ok {
		t.Error("a copy of the answer got the cached gzip form")
	}
	c.Purge()
	if s := c.Stats(); s.Bytes != 0 || s.Entries != 0 {
		t.Errorf("after Purge: %d bytes, %d entries", s.Bytes, s.Entries)
	}
	// An evicted entry keeps the form it had for the requests holding it, counted nowhere.
	if _, ok := slot2.Gzip(body2); !ok {
		t.Error("the form made before the eviction is still the answer's")
	}
	if s := c.Stats(); s.Bytes != 0 {
		t.Errorf("after Purge and a late request: %d bytes", s.Bytes)
	}
}

// Without caching, or for an answer that was not kept, the HTTP layer compresses by itself.
func TestGzipFormOnlyForKeptAnswers(t *testing.T) {
	c := NewResults(registry.NewDataVersions(), 0, 0, unregisteredMetrics())
	var slot GzipSlot
	body, _, _ := c.Get(WithGzipSlot(context.Background(), &slot), "acme", "S1", "DAYS", func(context.Context) ([]byte, error) {
		return []byte(strings.Repeat("x", 4096)), nil
	})
	if _, ok := slot.Gzip(body); ok {
		t.Error("an uncached answer has a kept gzip form")
	}
	var empty GzipSlot
	if _, ok := empty.Gzip(body); ok {
		t.Error("an empty slot gave a gzip form")
	}
}
