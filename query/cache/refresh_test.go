package cache

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"energy/schema/registry"
)

// counted returns a compute that answers the number of its calls so far.
func counted(calls *atomic.Int64) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) {
		return []byte(strconv.FormatInt(calls.Add(1), 10)), nil
	}
}

// waitRefreshes waits until c has finished n refreshes, done or dropped.
func waitRefreshes(t *testing.T, c *Results, n uint64) Stats {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st := c.Stats()
		if st.Refreshes+st.RefreshesDropped >= n {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("refreshes %+v, want %d", st, n)
		}
	}
}

// TestRefreshOnlyRecentlyRequestedAnswers: after a change of a site's data, its answers
// requested within RefreshWindow are computed again (the next request hits the new answer),
// one requested longer ago is not, nor is another site's.
func TestRefreshOnlyRecentlyRequestedAnswers(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, unregisteredMetrics())
	var polled, forgotten, other atomic.Int64
	ctx := context.Background()
	get := func(site, request string, calls *atomic.Int64) (string, bool) {
		b, hit, err := c.Get(ctx, "acme", site, request, counted(calls))
		if err != nil {
			t.Fatal(err)
		}
		return string(b), hit
	}
	get("S1", "polled", &polled)
	get("S1", "forgotten", &forgotten)
	get("S2", "other", &other)
	e, _ := c.lru.Peek(c.key("acme", "S1", "forgotten"))
	e.used.Store(time.Now().Add(-RefreshWindow - time.Minute).UnixNano())

	versions.Bump("acme", "S1")
	if st := waitRefreshes(t, c, 1); st.Refreshes != 1 {
		t.Fatalf("refreshes %+v, want 1 done", st)
	}
	time.Sleep(50 * time.Millisecond) // a second refresh, were there one, would be done by now
	if b, hit := get("S1", "polled", &polled); !hit || b != "2" {
		t.Errorf("polled answer after the change: %s hit=%v, want the refreshed 2 from the cache", b, hit)
	}
	if forgotten.Load() != 1 || other.Load() != 1 {
		t.Errorf("computations of the forgotten answer %d, of the other site's %d: want 1 each (never refreshed)", forgotten.Load(), other.Load())
	}
	if b, hit := get("S1", "forgotten", &forgotten); hit || b != "2" {
		t.Errorf("forgotten answer after the change: %s hit=%v, want a new computation", b, hit)
	}
	if st := c.Stats(); st.Refreshes != 1 || st.RefreshesDropped != 0 {
		t.Errorf("stats %+v, want one refresh", st)
	}
}

// TestRefreshRedoesWhenTheVersionMovesMeanwhile: data that changes again while its answer is
// refreshed makes the refresh compute again, so the answer kept is that of the last version,
// and the answer of the version in between is never served.
func TestRefreshRedoesWhenTheVersionMovesMeanwhile(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, unregisteredMetrics())
	var calls atomic.Int64
	moved := false
	compute := func(context.Context) ([]byte, error) {
		n := calls.Add(1)
		if n == 2 && !moved { // the refresh's first computation: the data changes under it
			moved = true
			versions.Bump("acme", "S1")
		}
		return []byte(strconv.FormatInt(n, 10)), nil
	}
	if _, _, err := c.Get(context.Background(), "acme", "S1", "r", compute); err != nil {
		t.Fatal(err)
	}
	versions.Bump("acme", "") // refreshed after the change (not prepared before it)
	st := waitRefreshes(t, c, 1)
	if st.Refreshes != 1 || calls.Load() != 3 {
		t.Fatalf("stats %+v after %d computations, want one refresh computed twice", st, calls.Load())
	}
	b, hit, err := c.Get(context.Background(), "acme", "S1", "r", compute)
	if err != nil || !hit || string(b) != "3" {
		t.Fatalf("answer %s hit=%v err=%v, want the second refresh computation's 3 from the cache", b, hit, err)
	}
}

// TestPreparedAnswerDroppedWhenAnotherChangeComesBetween: the answer computed before a site's
// change is counted is served only under the versions that change gives; here the tenant's
// reference data changes while it is computed, so it is never served, and the answer is
// computed again after both changes.
func TestPreparedAnswerDroppedWhenAnotherChangeComesBetween(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, unregisteredMetrics())
	var calls atomic.Int64
	compute := func(context.Context) ([]byte, error) {
		n := calls.Add(1)
		if n == 2 { // the prepared computation: another change comes meanwhile
			versions.Bump("acme", "")
		}
		return []byte(strconv.FormatInt(n, 10)), nil
	}
	if _, _, err := c.Get(context.Background(), "acme", "S1", "r", compute); err != nil {
		t.Fatal(err)
	}
	versions.Bump("acme", "S1")
	waitRefreshes(t, c, 1)
	b, hit, err := c.Get(context.Background(), "acme", "S1", "r", compute)
	if err != nil || string(b) != "3" || !hit {
		t.Fatalf("answer %s hit=%v err=%v, want 3 refreshed after both changes (2 was prepared for the site's change alone)", b, hit, err)
	}
}

// TestPreparedAnswerServedRightAfterTheChange: an answer polled before a change of its site's
// data is a hit at once after the change is counted, with the new value.
func TestPreparedAnswerServedRightAfterTheChange(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, unregisteredMetrics())
	var calls atomic.Int64
	if _, _, err := c.Get(context.Background(), "acme", "S1", "r", counted(&calls)); err != nil {
		t.Fatal(err)
	}
	versions.Bump("acme", "S1")
	b, hit, err := c.Get(context.Background(), "acme", "S1", "r", counted(&calls))
	if err != nil || string(b) != "2" || !hit {
		t.Fatalf("answer %s hit=%v err=%v, want the prepared 2 from the cache", b, hit, err)
	}
}

// A refreshed answer replaces the entry it was computed again for: that entry's versions have
// moved, so it leaves the cache (retired, not counted as an eviction) instead of holding memory
// until evicted.
func TestRefreshRetiresTheSupersededEntry(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, unregisteredMetrics())
	var calls atomic.Int64
	ctx := context.Background()
	if _, _, err := c.Get(ctx, "acme", "S1", "DAYS", counted(&calls)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		versions.Bump("acme", "S1")
		waitRefreshes(t, c, uint64(i+1))
		if st := c.Stats(); st.Entries != 1 || st.Evictions != 0 {
			t.Fatalf("after refresh %d: stats %+v, want 1 entry and no eviction", i+1, st)
		}
	}
	if b, hit, err := c.Get(ctx, "acme", "S1", "DAYS", counted(&calls)); err != nil || !hit || string(b) != "4" {
		t.Fatalf("answer %q hit %v err %v, want the third refresh's answer 4, a hit", b, hit, err)
	}
}
