package daily

import (
	"context"
	"maps"
	"testing"
	"time"

	"energy/bench"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestTableGivesTheAnswersOnBenchData rebuilds the table from the consumption benchmark's data
// (the golden answers' data set: a year of daily indexes on two dials, the HPHC tariff) and
// checks, for every site, that each day's row is the API's DAYS item of that day and each
// month of the monthly view (and the year of the yearly view) the API's MONTHS (YEARS) item.
func TestTableGivesTheAnswersOnBenchData(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	spec := bench.Spec{Sites: 2, Year: 2024}
	if err := bench.Generate(ctx, db, reg, spec, nil); err != nil {
		t.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	spans, err := table.Spans(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != spec.Sites {
		t.Fatalf("spans: %+v, want one per site", spans)
	}
	var calls, lastDone int
	rows, err := table.Rebuild(ctx, spans, func(done, _ int) { calls, lastDone = calls+1, done })
	if err != nil {
		t.Fatal(err)
	}
	if rows != spec.Sites*367 || calls != spec.Sites || lastDone != spec.Sites { // 366 days and the next January 1st, read at its midnight
		t.Fatalf("rebuild wrote %d rows with %d progress calls (last %d), want %d rows", rows, calls, lastDone, spec.Sites*367)
	}
	loc, _ := time.LoadLocation(bench.Timezone)
	year := consumption.Request{Start: time.Date(2024, 1, 1, 0, 0, 0, 0, loc), End: time.Date(2025, 1, 1, 0, 0, 0, 0, loc), StepValue: 1}
	for i := range spec.Sites {
		site, err := reg.Site(ctx, bench.Tenant, bench.SiteID(i))
		if err != nil {
			t.Fatal(err)
		}
		days := year
		days.StepUnit = consumption.UnitDays
		res, err := engine.Compute(ctx, site, days)
		if err != nil {
			t.Fatal(err)
		}
		stored := readDays(t, db, bench.Tenant, site.SiteID, registry.HeatingElec)
		if len(res.Consumptions) != 366 {
			t.Fatalf("%d DAYS items", len(res.Consumptions))
		}
		for _, it := range res.Consumptions {
			day := it.Period.StartTime.Format(time.DateOnly)
			row, ok := stored[day]
			if !ok {
				t.Fatalf("%s %s: no row", site.SiteID, day)
			}
			if it.EnergyMeter.Total == nil || *it.EnergyMeter.Total <= 0 {
				t.Fatalf("%s %s: the API answers no energy: the data set is not what this test expects", site.SiteID, day)
			}
			checkDay(t, site.SiteID+" "+day, it, row, false)
		}
		months := year
		months.StepUnit = consumption.UnitMonths
		if res, err = engine.Compute(ctx, site, months); err != nil {
			t.Fatal(err)
		}
		views := readPeriods(t, db, "SELECT toString(month), energy_wh, complete FROM monthly_energy"+
			" WHERE tenant_id = ? AND site_id = ? AND fluid = 'ELEC' AND month < '2025-01-01' ORDER BY month", site,
			"SELECT toString(month), heading, energy_wh FROM monthly_energy_by_heading"+
				" WHERE tenant_id = ? AND site_id = ? AND fluid = 'ELEC' AND month < '2025-01-01'")
		checkPeriods(t, site.SiteID+" MONTHS", res.Consumptions, views, time.DateOnly)
		yearly := year
		yearly.StepUnit = consumption.UnitYears
		if res, err = engine.Compute(ctx, site, yearly); err != nil {
			t.Fatal(err)
		}
		views = readPeriods(t, db, "SELECT toString(year), energy_wh, complete FROM yearly_energy"+
			" WHERE tenant_id = ? AND site_id = ? AND fluid = 'ELEC' AND year = 2024", site,
			"SELECT toString(year), heading, energy_wh FROM yearly_energy_by_heading"+
				" WHERE tenant_id = ? AND site_id = ? AND fluid = 'ELEC' AND year = 2024")
		checkPeriods(t, site.SiteID+" YEARS", res.Consumptions, views, "2006")
	}
}

// period is a row of the monthly or yearly view.
type period struct {
	key      string
	energyWh *float64
	headings map[string]float64
	complete uint8
}

func readPeriods(t *testing.T, db *schema.DB, query string, site registry.Site, byHeading string) []period {
	t.Helper()
	ctx := context.Background()
	out, err := schema.ScanAll(ctx, db, func(r schema.RowScanner) (period, error) {
		p := period{headings: map[string]float64{}}
		err := r.Scan(&p.key, &p.energyWh, &p.complete)
		return p, err
	}, query, site.TenantID, site.SiteID)
	if err != nil {
		t.Fatal(err)
	}
	type heading struct {
		key, name string
		wh        float64
	}
	hs, err := schema.ScanAll(ctx, db, func(r schema.RowScanner) (heading, error) {
		var h heading
		err := r.Scan(&h.key, &h.name, &h.wh)
		return h, err
	}, byHeading, site.TenantID, site.SiteID)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		for i := range out {
			if out[i].key == h.key {
				out[i].headings[h.name] = h.wh
			}
		}
	}
	return out
}

// checkPeriods compares the API's items with the view's rows, in order: the same energy and
// energy by heading (Wh, to 0.001), and every period complete.
func checkPeriods(t *testing.T, label string, items []consumption.Consumption, rows []period, keyLayout string) {
	t.Helper()
	if len(items) != len(rows) {
		t.Fatalf("%s: %d items, %d view rows", label, len(items), len(rows))
	}
	round := func(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
	for i, it := range items {
		r := rows[i]
		key := it.Period.StartTime.Format(keyLayout)
		if r.key != key || r.complete != 1 || r.energyWh == nil || it.EnergyMeter.Total == nil || round(*r.energyWh) != *it.EnergyMeter.Total {
			t.Errorf("%s %s: API %v Wh, view %s %v Wh complete %d", label, key, it.EnergyMeter.Total, r.key, r.energyWh, r.complete)
			continue
		}
		got := map[string]float64{}
		for h, v := range r.headings {
			got[h] = round(v)
		}
		if !maps.Equal(got, it.EnergyMeter.ByTariffHeading) {
			t.Errorf("%s %s: by heading: API %v, view %v", label, key, it.EnergyMeter.ByTariffHeading, got)
		}
	}
}
