package registry

import (
	"context"
	"testing"
	"time"
)

// TestDataVersionsSeeChangesOfAnotherProcess runs two stores on one database, as two energyd
// replicas would: an ingest bump and a site edit through one change the other's versions
// within a second, and a store's own change counts once.
func TestDataVersionsSeeChangesOfAnotherProcess(t *testing.T) {
	_, a, b := watchedStores(t)

	waitChange := func(what string, get func() uint64, before uint64) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for get() == before {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the other store's version stayed %d for 1 s", what, before)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	siteB := func() uint64 { return b.Versions.Get("acme", "S1") }
	before, ownBefore := siteB(), a.Versions.Get("acme", "S1")
	a.Versions.Bump("acme", "S1")
	waitChange("ingest bump", siteB, before)
	time.Sleep(200 * time.Millisecond) // a's watcher reads its own change back meanwhile
	if got := a.Versions.Get("acme", "S1"); got != ownBefore+1 {
		t.Errorf("a store's own change counted %d times, want once", got-ownBefore)
	}
	if got := b.Versions.Get("acme", "S2"); got != 0 {
		t.Errorf("site S2, never changed, has version %d on the other store", got)
	}

	tenantB := func() uint64 { return b.Versions.Get("acme", "") }
	before = tenantB()
	if err := a.PutSite(context.Background(), Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	waitChange("site edit", tenantB, before)
}
