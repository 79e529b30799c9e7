package consumption

import (
	"context"
	"testing"
	"time"

	"energy/schema/registry"
)

// TestTariffCacheSeesEdits: one day of 2000 Wh under baseTariff costs 2 kWh × 0.25 + 1 = 1.5 EUR.
// The price raised to 0.5 EUR/kWh through the engine's registry is seen by the next answer
// (2 × 0.5 + 1 = 2 EUR). Raised to 1 EUR/kWh by another process (another registry, whose edits
// this process's versions do not see), it is seen once the directory's copy of the tenant is too old: 2 × 1 + 1 = 3 EUR.
func TestTariffCacheSeesEdits(t *testing.T) {
	f := newConsumptionFixture(t)
	tr := baseTariff()
	f.tariff(tr)
	f.indexes(dailyIndexes("2024-05-01", "1", 0, 2000)...)
	clock := time.Now()
	f.reg.Directory.Now = func() time.Time { return clock }
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
		t.Fatalf("within the directory's age bound of an edit by another process: cost %v EUR, want the cached 2", got)
	}
	clock = clock.Add(registry.DirectoryMaxAge)
	if got := cost(); !nearly(got, 3) {
		t.Fatalf("after the age bound: cost %v EUR, want 3", got)
	}
}
