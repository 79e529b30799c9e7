package query

import (
	"context"
	"errors"
	"testing"
	"time"

	"energy/schema/registry"
)

// TestTariffCacheSeesEdits: one day of 2000 Wh under baseTariff costs 2 kWh × 0.25 + 1 = 1.5 EUR.
// The price raised to 0.5 EUR/kWh through the engine's registry is seen by the next answer
// (2 × 0.5 + 1 = 2 EUR). Raised to 1 EUR/kWh by another process (another registry, whose edits
// this process's versions do not see), it is seen once the cached tariff expires: 2 × 1 + 1 = 3 EUR.
func TestTariffCacheSeesEdits(t *testing.T) {
	f := newConsumptionFixture(t)
	tr := baseTariff()
	f.tariff(tr)
	f.indexes(dailyIndexes("2024-05-01", "1", 0, 2000)...)
	clock := time.Now()
	f.engine.tariffs.now = func() time.Time { return clock }
	cost := func() float64 {
		t.Helper()
		res := f.compute(days("2024-05-01", "2024-05-02"))
		if c := res.Consumptions[0].Cost; c != nil {
			return c.Total
		}
		t.Fatal("no cost")
		return 0
	}
	if got := cost(); !nearly(got, 1.5) {
		t.Fatalf("cost %v EUR, want 1.5", got)
	}

	tr.TenantID = fxTenant
	tr.Prices[0].ByHeading = map[string]float64{"BASE": 0.5}
	if err := f.reg.PutTariff(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	if got := cost(); !nearly(got, 2) {
		t.Fatalf("after an edit in this process: cost %v EUR, want 2", got)
	}

	tr.Prices[0].ByHeading = map[string]float64{"BASE": 1}
	if err := registry.New(f.db).PutTariff(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	if got := cost(); !nearly(got, 2) {
		t.Fatalf("within the TTL of an edit by another process: cost %v EUR, want the cached 2", got)
	}
	clock = clock.Add(ReferenceCacheTTL)
	if got := cost(); !nearly(got, 3) {
		t.Fatalf("after the TTL: cost %v EUR, want 3", got)
	}
}

// TestSiteCache: a site is read once, an edit through the registry is seen at once, and an
// unknown site is ErrNotFound every time (misses are not cached: a site created by another
// process is found at once).
func TestSiteCache(t *testing.T) {
	f := newConsumptionFixture(t)
	ctx := context.Background()
	sites := NewSiteCache(f.reg)
	s, err := sites.Site(ctx, fxTenant, fxSite)
	if err != nil || s.Timezone != "Europe/Paris" {
		t.Fatalf("Site = %+v, %v", s, err)
	}
	f.site.Timezone = "America/New_York"
	if err := f.reg.PutSite(ctx, f.site); err != nil {
		t.Fatal(err)
	}
	if s, err = sites.Site(ctx, fxTenant, fxSite); err != nil || s.Timezone != "America/New_York" {
		t.Fatalf("after an edit: Site = %+v, %v", s, err)
	}
	if _, err := sites.Site(ctx, fxTenant, "S2"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("unknown site: %v, want ErrNotFound", err)
	}
	if err := registry.New(f.db).PutSite(ctx, registry.Site{TenantID: fxTenant, SiteID: "S2", Timezone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sites.Site(ctx, fxTenant, "S2"); err != nil {
		t.Fatalf("a site created by another process: %v", err)
	}
	if _, err := sites.Site(ctx, "other", fxSite); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("another tenant's site: %v, want ErrNotFound", err)
	}
}
