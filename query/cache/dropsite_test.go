package cache

import (
	"context"
	"testing"

	"energy/schema/registry"
)

// An erased site's answers leave the cache at once, whatever version they were computed under;
// the other site's stay; an answer whose computation was running when the site was erased is
// returned to its request but not kept; nothing of it counts as an eviction.
func TestErasedSiteLeavesTheCache(t *testing.T) {
	versions := registry.NewDataVersions()
	c := NewResults(versions, 100, 0, NewMetrics("energy_dropsite_test_cache", "Test answers"))
	ctx := context.Background()
	answer := func(s string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return []byte(s), nil }
	}
	for _, req := range []string{"DAYS", "MONTHS"} {
		for _, site := range []string{"S1", "S2"} {
			if _, _, err := c.Get(ctx, "acme", site, req, answer(site+req)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// S1's data changes: both its answers, polled, are computed again under the new version;
	// the old ones, superseded, leave the cache (retired, not evicted).
	versions.Bump("acme", "S1")
	if _, _, err := c.Get(ctx, "acme", "S1", "DAYS", answer("S1DAYS-2")); err != nil {
		t.Fatal(err)
	}
	if n := c.SiteEntries("acme", "S1"); n != 2 {
		t.Fatalf("before the erasure: %d answers of S1, want 2 (the superseded ones retired)", n)
	}
	if st := c.Stats(); st.Entries != 4 || st.Evictions != 0 {
		t.Fatalf("before the erasure: stats %+v, want 4 entries and no eviction", st)
	}

	versions.Erased("acme", "S1")
	if n := c.SiteEntries("acme", "S1"); n != 0 {
		t.Fatalf("after the erasure: %d answers of S1 held, want 0", n)
	}
	if n := c.SiteEntries("acme", "S2"); n != 2 {
		t.Fatalf("after erasing S1: %d answers of S2, want 2", n)
	}
	if st := c.Stats(); st.Entries != 2 || st.Evictions != 0 {
		t.Fatalf("stats %+v, want 2 entries and no eviction", st)
	}

	// Erased while computing: the request gets its answer, the cache does not keep it.
	body, hit, err := c.Get(ctx, "acme", "S1", "DAYS", func(context.Context) ([]byte, error) {
		versions.Erased("acme", "S1")
		return []byte("late"), nil
	})
	if err != nil || hit || string(body) != "late" {
		t.Fatalf("answer %q hit %v err %v", body, hit, err)
	}
	if n := c.SiteEntries("acme", "S1"); n != 0 {
		t.Fatalf("an answer computed across the erasure was kept (%d)", n)
	}
}
