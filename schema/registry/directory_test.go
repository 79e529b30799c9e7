package registry

import (
	"context"
	"errors"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
)

// TestDirectory: once warmed, sites and tariffs are answered without a query; an edit through
// the store is seen by the next lookup; an edit by another process that this one does not hear
// of is seen once the copy is DirectoryMaxAge old; a site created elsewhere is found at once
// (one registry read, then kept); an unknown or foreign site is ErrNotFound every time.
func TestDirectory(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	s := New(db)
	clock := time.Now()
	s.Directory.Now = func() time.Time { return clock }
	tariff := Tariff{TenantID: "acme", TariffID: "T1", Option: OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices: []PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.25}}}}
	if err := s.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	for _, site := range []Site{{TenantID: "acme", SiteID: "S1", TariffID: "T1"}, {TenantID: "globex", SiteID: "G1"}} {
		if err := s.PutSite(ctx, site); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Directory.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	qctx, queries := schema.CountQueries(ctx)
	site := func(tenant, id string) (Site, error) {
		t.Helper()
		return s.Directory.Site(qctx, tenant, id)
	}
	if got, err := site("acme", "S1"); err != nil || got.TariffID != "T1" || got.Timezone != DefaultTimezone || got.HeatingFluid != HeatingNone {
		t.Fatalf("S1 = %+v, %v", got, err)
	}
	if got, err := site("globex", "G1"); err != nil || got.SiteID != "G1" {
		t.Fatalf("G1 = %+v, %v", got, err)
	}
	if got, err := s.Directory.Tariff(qctx, "acme", "T1"); err != nil || got.Prices[0].ByHeading["BASE"] != 0.25 {
		t.Fatalf("T1 = %+v, %v", got, err)
	}
	if n := queries(); n != 0 {
		t.Fatalf("warm lookups made %d queries, want 0", n)
	}

	// Edits through this store: seen by the next lookup.
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", TariffID: "T1", Timezone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	tariff.Prices[0].ByHeading["BASE"] = 0.5
	if err := s.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	if got, err := site("acme", "S1"); err != nil || got.Timezone != "America/New_York" {
		t.Fatalf("after an edit through the store: S1 = %+v, %v", got, err)
	}
	if got, err := s.Directory.Tariff(ctx, "acme", "T1"); err != nil || got.Prices[0].ByHeading["BASE"] != 0.5 {
		t.Fatalf("after an edit through the store: T1 = %+v, %v", got, err)
	}

	// A site created by another process: found at once, by one registry read, then kept.
	other := New(db)
	if err := other.PutSite(ctx, Site{TenantID: "acme", SiteID: "S2", HeatingFluid: HeatingGas}); err != nil {
		t.Fatal(err)
	}
	before := queries()
	if got, err := site("acme", "S2"); err != nil || got.HeatingFluid != HeatingGas {
		t.Fatalf("a site created by another process: %+v, %v", got, err)
	}
	if _, err := site("acme", "S2"); err != nil || queries()-before != 1 {
		t.Fatalf("S2 twice: %v, %d queries; want 1", err, queries()-before)
	}

	// Unknown and foreign sites: ErrNotFound, every time.
	for range 2 {
		for _, k := range [][2]string{{"acme", "S9"}, {"acme", "G1"}, {"globex", "S1"}, {"nobody", "S1"}} {
			if _, err := site(k[0], k[1]); !errors.Is(err, ErrNotFound) {
				t.Fatalf("site %s of tenant %s: %v, want ErrNotFound", k[1], k[0], err)
			}
		}
	}

	// An edit by another process whose version this one does not hear of (no watcher): the old
	// site until the copy is DirectoryMaxAge old, then the new one.
	if err := other.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", TariffID: "T1", Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(directoryRefreshAge - time.Millisecond)
	if got, _ := site("acme", "S1"); got.Timezone != "America/New_York" {
		t.Fatalf("within the age bound: S1 in %s, want the copy's America/New_York", got.Timezone)
	}
	clock = clock.Add(DirectoryMaxAge)
	if got, _ := site("acme", "S1"); got.Timezone != "Asia/Tokyo" {
		t.Fatalf("after the age bound: S1 in %s, want Asia/Tokyo", got.Timezone)
	}
}

// TestDirectoryRefreshesInTheBackground: a copy between half the age bound and the bound
// answers at once and is reloaded behind the lookup, so a tenant in use never waits on age.
func TestDirectoryRefreshesInTheBackground(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	s := New(db)
	clock := time.Now()
	s.Directory.Now = func() time.Time { return clock }
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Directory.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := New(db).PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(directoryRefreshAge)
	qctx, queries := schema.CountQueries(ctx)
	if got, err := s.Directory.Site(qctx, "acme", "S1"); err != nil || got.Timezone != DefaultTimezone || queries() != 0 {
		t.Fatalf("an aging copy: %+v, %v, %d queries; want the copy's zone at once", got, err, queries())
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got, _ := s.Directory.Site(qctx, "acme", "S1"); got.Timezone == "Asia/Tokyo" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background reload did not bring Asia/Tokyo within 5 s")
		}
	}
	if n := queries(); n != 0 {
		t.Fatalf("lookups made %d queries; the reload is not theirs", n)
	}
}

// TestDirectoryFollowsAnotherProcess runs two stores on one database with their version
// watchers, as two energyd replicas: a site created, edited, and a tariff edited through one
// are seen through the other's directory within a second, without waiting for the age bound.
func TestDirectoryFollowsAnotherProcess(t *testing.T) {
	ctx, a, b := watchedStores(t)
	frozen := time.Now() // b's copies never age: only versions move them
	b.Directory.Now = func() time.Time { return frozen }
	tariff := Tariff{TenantID: "acme", TariffID: "T1", Option: OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices: []PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.25}}}}
	if err := a.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	if err := a.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", TariffID: "T1"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Directory.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	within := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen through the other store within 1 s", what)
			}
		}
	}
	within("the site", func() bool { s, err := b.Directory.Site(ctx, "acme", "S1"); return err == nil && s.TariffID == "T1" })

	if err := a.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", TariffID: "T1", Timezone: "Europe/London"}); err != nil {
		t.Fatal(err)
	}
	within("a site edit", func() bool { s, _ := b.Directory.Site(ctx, "acme", "S1"); return s.Timezone == "Europe/London" })

	tariff.Prices[0].ByHeading["BASE"] = 0.3
	if err := a.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	within("a tariff edit", func() bool {
		tr, _ := b.Directory.Tariff(ctx, "acme", "T1")
		return tr.Prices[0].ByHeading["BASE"] == 0.3
	})

	if err := a.PutSite(ctx, Site{TenantID: "acme", SiteID: "S2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Directory.Site(ctx, "acme", "S2"); err != nil {
		t.Fatalf("a site created a moment ago through the other store: %v", err)
	}
}

// TestDirectoryKeepsAnUnchangedCopy: an aged copy whose registry rows are unchanged is kept
// after one small query (their fingerprint), not read whole again; an edit no version announced
// (another store, not watched) changes the fingerprint, and the copy is read again.
func TestDirectoryKeepsAnUnchangedCopy(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	s := New(db)
	clock := time.Now()
	s.Directory.Now = func() time.Time { return clock }
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", Timezone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	site := func() (Site, int64) {
		t.Helper()
		qctx, queries := schema.CountQueries(ctx)
		got, err := s.Directory.Site(qctx, "acme", "S1")
		if err != nil {
			t.Fatal(err)
		}
		return got, queries()
	}
	if got, n := site(); got.Timezone != "America/New_York" || n != 3 {
		t.Fatalf("first lookup: %s after %d queries; want America/New_York after 3 (fingerprint, sites, tariffs)", got.Timezone, n)
	}
	for range 3 {
		clock = clock.Add(DirectoryMaxAge)
		if got, n := site(); got.Timezone != "America/New_York" || n != 1 {
			t.Fatalf("an aged, unchanged copy: %s after %d queries; want the copy after 1 (the fingerprint)", got.Timezone, n)
		}
	}
	if err := New(db).PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(DirectoryMaxAge)
	if got, n := site(); got.Timezone != "Asia/Tokyo" || n != 3 {
		t.Fatalf("an aged copy after an unannounced edit: %s after %d queries; want Asia/Tokyo after 3", got.Timezone, n)
	}
}
