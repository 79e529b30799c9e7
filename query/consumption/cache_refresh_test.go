package consumption

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"energy/query/cache"
	"energy/schema/registry"
)

// waitRefreshes waits until c has finished n background refreshes (done or dropped) in all.
func waitRefreshes(t *testing.T, c *Cached, n uint64) cache.Stats {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := c.Stats()
		if st.Refreshes+st.RefreshesDropped >= n {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d refreshes after 30 s, want %d: %+v", st.Refreshes+st.RefreshesDropped, n, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pollDays is a dashboard's request for the days of 1–5 March 2024 of the fixture's site.
func pollDays(t *testing.T, f *consumptionFixture, c *Cached) (body []byte, hit bool) {
	t.Helper()
	req := days("2024-03-01", "2024-03-05")
	b, hit, err := c.JSON(context.Background(), fxTenant, fxSite, "days 2024-03-01 2024-03-05", func(context.Context) (registry.Site, Request, error) {
		return f.site, req, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, hit
}

// dayTotals are the Wh of each step of a consumption answer.
func dayTotals(t *testing.T, body []byte) []float64 {
	t.Helper()
	var r ConsumptionResult
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, c := range r.Consumptions {
		if c.EnergyMeter.Total == nil {
			out = append(out, -1)
			continue
		}
		out = append(out, *c.EnergyMeter.Total)
	}
	return out
}

// freshJSON is the answer computed now, without a cache.
func freshJSON(t *testing.T, f *consumptionFixture) []byte {
	t.Helper()
	b, err := EncodeJSON(f.compute(days("2024-03-01", "2024-03-05")))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIngestRefreshesThePolledAnswer: a dashboard polls the days of a site; readings of later
// days arrive and the site's version moves, as ingest does. The cache computes the answer on the
// new readings before the version moves, so the very next poll is a hit, and it is the new
// answer (days 3 and 4 now have their Wh), byte for byte what the engine computes without a
// cache.
func TestIngestRefreshesThePolledAnswer(t *testing.T) {
	f := newConsumptionFixture(t)
	f.indexes(dailyIndexes("2024-03-01", "BASE", 1000, 3000, 6000)...) // 1–3 March: 2,000 Wh then 3,000 Wh
	c := NewCached(f.engine, f.reg.Versions, 100, 0)
	before, hit := pollDays(t, f, c)
	if hit {
		t.Fatal("first poll hit")
	}
	if got := dayTotals(t, before); len(got) != 4 || got[0] != 2000 || got[1] != 3000 || got[2] != -1 {
		t.Fatalf("days before the ingest: %v, want 2000 3000 then none", got)
	}

	f.indexes(dailyIndexes("2024-03-04", "BASE", 10000, 15000)...) // 3 March: 4,000 Wh; 4 March: 5,000 Wh
	f.reg.Versions.Bump(fxTenant, fxSite)

	after, hit := pollDays(t, f, c) // at once: no waiting for a refresh
	if !hit {
		t.Fatal("the poll after the ingest missed: the refresh did not store the new answer")
	}
	if got := dayTotals(t, after); len(got) != 4 || got[0] != 2000 || got[1] != 3000 || got[2] != 4000 || got[3] != 5000 {
		t.Fatalf("days after the ingest: %v, want 2000 3000 4000 5000", got)
	}
	if fresh := freshJSON(t, f); !bytes.Equal(after, fresh) {
		t.Fatalf("refreshed answer differs from a fresh computation:\n%s\n%s", after, fresh)
	}
	if st := waitRefreshes(t, c, 1); st.Misses != 1 || st.Hits != 1 || st.Refreshes != 1 || st.RefreshesDropped != 0 {
		t.Errorf("stats %+v, want the first poll's miss, one hit and one refresh done", st)
	}
}

// TestRefreshFollowsAnotherReplicasIngest: two energyd replicas share one database. The second
// one's dashboard polls a site; the first one ingests into it. Once the second one's watcher
// reads the new data version, it refreshes its cached answer: its next poll is a hit with the
// new Wh.
func TestRefreshFollowsAnotherReplicasIngest(t *testing.T) {
	f := newConsumptionFixture(t)
	f.indexes(dailyIndexes("2024-03-01", "BASE", 1000, 3000, 6000)...)
	replica := registry.New(f.db) // the second process's registry, versions and cache
	c := NewCached(f.engine, replica.Versions, 100, 0)
	if _, hit := pollDays(t, f, c); hit {
		t.Fatal("first poll hit")
	}

	f.indexes(dailyIndexes("2024-03-04", "BASE", 10000, 15000)...)
	f.reg.Versions.Bump(fxTenant, fxSite) // the first process's ingest, recorded in data_versions
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go replica.Versions.Watch(ctx, 20*time.Millisecond, nil)
	waitRefreshes(t, c, 1)

	after, hit := pollDays(t, f, c)
	if !hit {
		t.Fatal("the replica's poll after the other's ingest missed")
	}
	if got := dayTotals(t, after); len(got) != 4 || got[2] != 4000 || got[3] != 5000 {
		t.Fatalf("days after the ingest: %v, want 3 and 4 March at 4000 and 5000", got)
	}
	if fresh := freshJSON(t, f); !bytes.Equal(after, fresh) {
		t.Fatalf("refreshed answer differs from a fresh computation:\n%s\n%s", after, fresh)
	}
}

// gatedEngine counts its computations and holds each until release is closed.
type gatedEngine struct {
	countingEngine
	started chan struct{}
	release chan struct{}
}

func (e *gatedEngine) Compute(ctx context.Context, site registry.Site, req Request) (*ConsumptionResult, error) {
	e.started <- struct{}{}
	<-e.release
	return e.countingEngine.Compute(ctx, site, req)
}

// TestRequestJoinsTheRefreshUnderWay: a request for an answer being refreshed (after a change of
// the tenant's reference data, which is not prepared before it is counted) waits for that
// computation instead of making its own, and gets the new answer.
func TestRequestJoinsTheRefreshUnderWay(t *testing.T) {
	eng := &gatedEngine{started: make(chan struct{}, 4), release: make(chan struct{})}
	versions := registry.NewDataVersions()
	c := NewCached(eng, versions, 100, 0)
	get := func() (float64, bool) {
		b, hit, err := c.JSON(context.Background(), "acme", "S1", "r", resolveSite("S1"))
		if err != nil {
			t.Error(err)
			return 0, false
		}
		return total(t, b), hit
	}
	first := make(chan float64)
	go func() { v, _ := get(); first <- v }()
	<-eng.started
	eng.release <- struct{}{}
	if v := <-first; v != 1 {
		t.Fatalf("first answer %v, want 1", v)
	}

	versions.Bump("acme", "")
	<-eng.started // the refresh computes
	var wg sync.WaitGroup
	var joined float64
	var joinedHit bool
	wg.Go(func() { joined, joinedHit = get() })
	time.Sleep(50 * time.Millisecond) // the request reaches the computation under way
	close(eng.release)
	wg.Wait()
	if joined != 2 || joinedHit {
		t.Fatalf("request during the refresh: %v hit=%v, want the refresh's 2 (computed, not from the cache)", joined, joinedHit)
	}
	waitRefreshes(t, c, 1)
	if n := eng.calls.Load(); n != 2 {
		t.Errorf("engine ran %d times, want 2 (the first request, then the refresh the second request joined)", n)
	}
	if v, hit := get(); v != 2 || !hit {
		t.Errorf("next poll: %v hit=%v, want the cached 2", v, hit)
	}
}
