package consumption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"energy/schema/registry"
)

// countingEngine answers with the number of computations so far in energyMeter.total: a
// recomputed answer differs from a cached one. (The engine itself is tested against
// ClickHouse; this isolates the cache's keying.)
type countingEngine struct {
	calls atomic.Int64
	delay time.Duration
}

func (e *countingEngine) Compute(_ context.Context, site registry.Site, req Request) (*ConsumptionResult, error) {
	n := float64(e.calls.Add(1))
	time.Sleep(e.delay)
	return &ConsumptionResult{Step: "P1D", Consumptions: []Consumption{{EnergyMeter: EnergyMeter{Total: &n}}}}, nil
}

func resolveSite(siteID string) Resolve {
	return func(context.Context) (registry.Site, Request, error) {
		return registry.Site{TenantID: "acme", SiteID: siteID, Timezone: "Europe/Paris"}, Request{}, nil
	}
}

func total(t *testing.T, body []byte) float64 {
	t.Helper()
	var r ConsumptionResult
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	return *r.Consumptions[0].EnergyMeter.Total
}

func TestCacheInvalidatedByTheSiteBumpOnly(t *testing.T) {
	eng := &countingEngine{}
	versions := registry.NewDataVersions()
	c := NewCached(eng, versions, 100, 0)
	ctx := context.Background()
	get := func(site string) (float64, bool) {
		b, hit, err := c.JSON(ctx, "acme", site, "startTs=...&stepUnit=DAYS", resolveSite(site))
		if err != nil {
			t.Fatal(err)
		}
		return total(t, b), hit
	}

	if v, hit := get("S1"); hit || v != 1 {
		t.Fatalf("first S1: %v hit=%v", v, hit)
	}
	if v, hit := get("S2"); hit || v != 2 {
		t.Fatalf("first S2: %v hit=%v", v, hit)
	}
	if v, hit := get("S1"); !hit || v != 1 {
		t.Fatalf("S1 again: %v hit=%v, want the cached 1", v, hit)
	}
	// An ingest into S1 bumps its version: S1, polled, is computed again in the background and
	// the next request hits the new answer; S2 keeps its cached one.
	versions.Bump("acme", "S1")
	waitRefreshes(t, c, 1)
	if v, hit := get("S1"); !hit || v != 3 {
		t.Fatalf("S1 after its bump: %v hit=%v, want the refreshed 3", v, hit)
	}
	if v, hit := get("S2"); !hit || v != 2 {
		t.Fatalf("S2 after S1's bump: %v hit=%v, want the cached 2", v, hit)
	}
	// Another tenant's site of the same id does not share entries nor versions.
	versions.Bump("globex", "S2")
	if v, hit := get("S2"); !hit || v != 2 {
		t.Fatalf("S2 after globex's bump: %v hit=%v", v, hit)
	}
	b, hit, _ := c.JSON(ctx, "globex", "S2", "startTs=...&stepUnit=DAYS", resolveSite("S2"))
	if hit || total(t, b) != 4 {
		t.Fatalf("globex S2 shares acme's entry")
	}
	// A tenant-wide reference change (site or tariff edited) invalidates the tenant's answers:
	// both are computed again, the one requested longest ago (S1) first.
	versions.Bump("acme", "")
	waitRefreshes(t, c, 3)
	if v, hit := get("S2"); !hit || v != 6 {
		t.Fatalf("S2 after a tenant reference change: %v hit=%v, want the refreshed 6", v, hit)
	}
	if v, hit := get("S1"); !hit || v != 5 {
		t.Fatalf("S1 after a tenant reference change: %v hit=%v, want the refreshed 5", v, hit)
	}
	// A different request is a different entry.
	if _, hit, _ := c.JSON(ctx, "acme", "S1", "startTs=...&stepUnit=MONTHS", resolveSite("S1")); hit {
		t.Fatal("another request hit S1's DAYS entry")
	}
	st := c.Stats()
	if st.Hits != 6 || st.Misses != 4 || st.Refreshes != 3 {
		t.Errorf("stats %+v, want 6 hits, 4 misses and 3 refreshes", st)
	}
}

func TestCacheErrorsAreNotCached(t *testing.T) {
	eng := &countingEngine{}
	c := NewCached(eng, registry.NewDataVersions(), 100, 0)
	bad := errors.New("site not found")
	fail := func(context.Context) (registry.Site, Request, error) {
		return registry.Site{}, Request{}, bad
	}
	for range 2 {
		if _, _, err := c.JSON(context.Background(), "acme", "S1", "r", fail); !errors.Is(err, bad) {
			t.Fatalf("err %v", err)
		}
	}
	if eng.calls.Load() != 0 || c.Stats().Entries != 0 {
		t.Fatalf("a failed resolve reached the engine or the cache: %+v", c.Stats())
	}
}

func TestCacheBounds(t *testing.T) {
	eng := &countingEngine{}
	c := NewCached(eng, registry.NewDataVersions(), 3, 0)
	for i := range 5 {
		if _, _, err := c.JSON(context.Background(), "acme", "S1", fmt.Sprint("r", i), resolveSite("S1")); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Stats()
	if st.Entries != 3 || st.Evictions != 2 {
		t.Fatalf("entry bound: %+v", st)
	}
	// The least recently used goes first: r2 is oldest now, r4 newest.
	if _, hit, _ := c.JSON(context.Background(), "acme", "S1", "r2", resolveSite("S1")); !hit {
		t.Error("r2 evicted before r0/r1")
	}

	// Byte bound: answers of ~1.1 KiB in an 8 KiB cache keep at most 6 (each costs its key
	// and overhead too), whatever the entry bound.
	big := &bigEngine{size: 1024}
	c = NewCached(big, registry.NewDataVersions(), 1000, 8192)
	for i := range 10 {
		if _, _, err := c.JSON(context.Background(), "acme", "S1", fmt.Sprint("r", i), resolveSite("S1")); err != nil {
			t.Fatal(err)
		}
	}
	st = c.Stats()
	if st.Bytes > 8192 || st.Entries < 5 || st.Entries > 6 || st.Evictions != uint64(10-st.Entries) {
		t.Fatalf("byte bound: %+v", st)
	}
	// An answer larger than a quarter of the cache is served but not kept.
	big.size = 3000
	if _, _, err := c.JSON(context.Background(), "acme", "S1", "huge", resolveSite("S1")); err != nil {
		t.Fatal(err)
	}
	if _, hit, _ := c.JSON(context.Background(), "acme", "S1", "huge", resolveSite("S1")); hit {
		t.Error("an oversized answer was cached")
	}

	// maxEntries 0 disables caching.
	c = NewCached(eng, registry.NewDataVersions(), 0, 0)
	for range 2 {
		if _, hit, _ := c.JSON(context.Background(), "acme", "S1", "r", resolveSite("S1")); hit {
			t.Fatal("disabled cache hit")
		}
	}
	c.Purge()
}

type bigEngine struct{ size int }

func (e *bigEngine) Compute(context.Context, registry.Site, Request) (*ConsumptionResult, error) {
	return &ConsumptionResult{Step: strings.Repeat("x", e.size)}, nil
}

func TestCacheConcurrentMissesComputeOnce(t *testing.T) {
	eng := &countingEngine{delay: 50 * time.Millisecond}
	c := NewCached(eng, registry.NewDataVersions(), 100, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, _, err := c.JSON(context.Background(), "acme", "S1", "r", resolveSite("S1")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Goroutines that arrive after the first computation stored its answer hit; the others
	// share the one in flight. Either way the engine ran once.
	if n := eng.calls.Load(); n != 1 {
		t.Errorf("engine ran %d times for one key", n)
	}
}
