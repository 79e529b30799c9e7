package daily

import (
	"context"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestTariffAndSiteChangesRewriteTheDays gives a site with stored days a tariff, then swaps the
// tariff's dial headings: each write rewrites the days with the API's headings of the moment.
func TestTariffAndSiteChangesRewriteTheDays(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	var hookErr error
	reg.AfterChange = func(ctx context.Context, c registry.ReferenceChange) { hookErr = table.ReferenceChanged(ctx, c) }
	site := registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris"}
	if err := reg.PutSite(ctx, site); err != nil || hookErr != nil {
		t.Fatal(err, hookErr)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	midnight := time.Date(2024, 6, 1, 0, 0, 0, 0, paris)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for dial, step := range map[string]int64{"1": 1000, "2": 3000} {
			if err := b.Append("acme", "S1", "P1", midnight.AddDate(0, 0, i), uint8(0), "MKT_SMART_DISTRIBUTOR", midnight.AddDate(0, 1, 0), dial, int64(i)*step, "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	spans, err := table.Spans(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}
	headings := func(want map[string]float64) {
		t.Helper()
		got := readDays(t, db, "acme", "S1", registry.HeatingElec)
		for _, key := range []string{"2024-06-01", "2024-06-02"} {
			r := got[key]
			m := map[string]float64{}
			for i, h := range r.Headings {
				m[h] = r.HeadingWh[i]
			}
			if len(m) != len(want) || m["HC"] != want["HC"] || m["HP"] != want["HP"] || m["1"] != want["1"] || m["2"] != want["2"] {
				t.Errorf("%s: headings %v, want %v", key, m, want)
			}
			s, err := reg.Directory.Site(ctx, "acme", "S1")
			if err != nil {
				t.Fatal(err)
			}
			day, _ := time.ParseInLocation(time.DateOnly, key, paris)
			res, err := engine.Compute(ctx, s, consumption.Request{Start: day, End: day.AddDate(0, 0, 1), StepUnit: consumption.UnitDays, StepValue: 1})
			if err != nil {
				t.Fatal(err)
			}
			checkDay(t, key, res.Consumptions[0], r, false)
		}
	}
	headings(map[string]float64{"1": 1000, "2": 3000})

	tariff := registry.Tariff{TenantID: "acme", TariffID: "T", Option: registry.OptionHPHC, DialHeadings: map[string]string{"1": "HC", "2": "HP"},
		DefaultHeading: "HP", Prices: []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"HC": 0.2, "HP": 0.3}}}}
	if err := reg.PutTariff(ctx, tariff); err != nil || hookErr != nil {
		t.Fatal(err, hookErr)
	}
	site.TariffID = "T"
	if err := reg.PutSite(ctx, site); err != nil || hookErr != nil {
		t.Fatal(err, hookErr)
	}
	headings(map[string]float64{"HC": 1000, "HP": 3000})

	tariff.DialHeadings = map[string]string{"1": "HP", "2": "HC"}
	if err := reg.PutTariff(ctx, tariff); err != nil || hookErr != nil {
		t.Fatal(err, hookErr)
	}
	headings(map[string]float64{"HC": 3000, "HP": 1000})
}
