package heating

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"energy/query/weather"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestBudgetPricedOnTheSiteLocalDate: a cached budget follows the site's local date, on which
// the price is in force, not UTC's. The site is in Auckland (UTC+13 in March); its gas price
// doubles from 2 March 2026, which starts there at 1 March 11:00 UTC.
//
// Worked by hand: daily readings at Auckland midnights from 1 January 2023 for 400 days, a day of
// mean T using 10 + 3 × max(0, 16 − T) kWh (the climate of model_test.go); the last reading is
// at 5 February 2024 00:00, so the fit period ends on 4 February 2024 and the normal year is
// 2023 alone. The heating budget is (10 × 365 + 3 × NDD₂₀₂₃(16)) × price: 0.10 EUR/kWh on
// 1 March local, 0.20 on 2 March. Indexes are whole Wh: the budget is checked to 0.10 EUR.
func TestBudgetPricedOnTheSiteLocalDate(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	reg := registry.New(db)
	site := registry.Site{TenantID: "acme", SiteID: "AKL", Timezone: "Pacific/Auckland", WeatherStationID: "ST",
		HeatingFluid: registry.HeatingGas, GasTariffID: "GAS-1"}
	loc := site.Location()
	if err := reg.PutStation(ctx, registry.Station{TenantID: "acme", StationID: "ST", Name: "Station", Latitude: -37, Longitude: 175}); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutTariff(ctx, registry.Tariff{TenantID: "acme", TariffID: "GAS-1", Option: "GAS", Prices: []registry.PricePeriod{
		{ValidFrom: "2000-01-01", ByHeading: map[string]float64{"BASE": 0.1}},
		{ValidFrom: "2026-03-02", ByHeading: map[string]float64{"BASE": 0.2}},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}

	first := Date{2023, 1, 1}
	means := climate(first, 800)
	var obs []weather.Observation
	for d, m := range means {
		obs = append(obs, weather.Observation{Date: d.Midnight(loc).Add(12 * time.Hour), Temperature: m, Cloudiness: 4})
	}
	if err := weather.NewStore(db).Put(ctx, "acme", "ST", obs); err != nil {
		t.Fatal(err)
	}
	batch, err := db.Conn.PrepareBatch(ctx, "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	var wh float64
	for i := 0; i <= 400; i++ {
		d := first.AddDays(i)
		ts := d.Midnight(loc).UTC()
		if err := batch.Append("acme", "AKL", "GAS1", ts, uint8(0), "MKT_CYCLIC_DISTRIBUTOR", ts, int64(math.Round(wh)), "m3", []string{"kWh"}, []float64{0.001}, "t"); err != nil {
			t.Fatal(err)
		}
		wh += 1000 * (10 + 3*math.Max(0, 16-means[d]))
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
	var ndd float64
	for d := (Date{2023, 1, 1}); d.Year == 2023; d = d.AddDays(1) {
		ndd += math.Max(0, 16-means[d])
	}
	yearly := 10*365 + 3*ndd

	var clock time.Time
	b := NewBudgeter(db, reg, nil)
	b.SetClock(func() time.Time { return clock })
	budgets := NewBudgets(b, reg.Versions, 100, 0)
	load := func(context.Context) (registry.Site, error) { return site, nil }
	for _, c := range []struct {
		utc   string
		price float64
		hit   bool
	}{
		{"2026-03-01T10:59:59Z", 0.1, false}, // 23:59:59 on 1 March in Auckland
		{"2026-03-01T11:00:00Z", 0.2, false}, // 00:00 on 2 March there, still 1 March in UTC
		{"2026-03-01T23:00:00Z", 0.2, true},
	} {
		clock, _ = time.Parse(time.RFC3339, c.utc)
		body, hit, err := budgets.HeatingBudgetJSON(ctx, "acme", "AKL", load)
		if err != nil {
			t.Fatalf("%s: %v", c.utc, err)
		}
		var hb HeatingBudget
		if err := json.Unmarshal(body, &hb); err != nil {
			t.Fatal(err)
		}
		if want := yearly * c.price; hit != c.hit || math.Abs(hb.Budget-want) > 0.1 {
			t.Errorf("at %s: budget %v EUR (cached %v), want %.2f (cached %v)", c.utc, hb.Budget, hit, want, c.hit)
		}
	}
}
