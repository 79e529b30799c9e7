package daily

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestDailyPathHandComputed: a Paris site with readings at every local midnight of March and
// April 2024, 10 kWh a day, BASE at 0.25 EUR/kWh then 0.30 from March 15th, 366 EUR a year of
// subscription (1 EUR a day in 2024); a meter change at April 10th's midnight, April 20th's
// reading invalidated, and no reading on April 25th and 26th. The table answers the steps
// whose days are each one real reading interval, with the values worked out by hand (a price
// change inside the March step, the 23-hour March 31st, the meter change); the days around the
// invalidated reading and the gap are interpolated, so the readings answer those. Both paths
// give the same bytes every time.
func TestDailyPathHandComputed(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	tariff := registry.Tariff{TenantID: "acme", TariffID: "BASE", Option: registry.OptionBase,
		DialHeadings: map[string]string{"1": "BASE"},
		Prices: []registry.PricePeriod{
			{ValidFrom: "2023-01-01", ByHeading: map[string]float64{"BASE": 0.25}},
			{ValidFrom: "2024-03-15", ByHeading: map[string]float64{"BASE": 0.30}},
		},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2023-01-01", Yearly: map[string]float64{"subscription": 366}}},
	}
	if err := reg.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	site := registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris", TariffID: "BASE", HeatingFluid: registry.HeatingElec}
	if err := reg.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	day := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 0, 0, 0, 0, paris) }
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	gen := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	add := func(ts time.Time, before uint8, nature string, gen time.Time, value int64) {
		if err := b.Append("acme", "S1", "P1", ts, before, nature, gen, "1", value, "j"); err != nil {
			t.Fatal(err)
		}
	}
	value := int64(100_000)
	for d := day(3, 1); !d.After(day(5, 1)); d = d.AddDate(0, 0, 1) {
		switch {
		case d.Equal(day(4, 10)): // the old meter's last index, then the new meter's first
			add(d, 1, "MKT_SMART_DISTRIBUTOR", gen, value)
			value = 0
		case d.Equal(day(4, 20)): // read, then invalidated by a later generation
			add(d, 0, "MKT_SMART_DISTRIBUTOR_INVALID", gen.Add(time.Hour), value)
		case d.Equal(day(4, 25)) || d.Equal(day(4, 26)):
			value += 10_000
			continue
		}
		add(d, 0, "MKT_SMART_DISTRIBUTOR", gen, value)
		value += 10_000
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	fast := consumption.NewEngine(db, reg, 0.06)
	slow := consumption.NewEngine(db, reg, 0.06).WithoutDailyTable()
	table := New(db, reg, fast)
	spans, err := table.Spans(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}
	if site, err = reg.Site(ctx, "acme", "S1"); err != nil {
		t.Fatal(err)
	}

	answer := func(label string, req consumption.Request, path string) *consumption.ConsumptionResult {
		t.Helper()
		before := consumption.AnswersComputedFrom(path)
		got, err := fast.Compute(ctx, site, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if consumption.AnswersComputedFrom(path) != before+1 {
			t.Errorf("%s: not answered from the %s", label, path)
		}
		want, err := slow.Compute(ctx, site, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		gotJSON, _ := consumption.EncodeJSON(got)
		wantJSON, _ := consumption.EncodeJSON(want)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("%s: the answers differ:\ntable    %s\nreadings %s", label, clip(gotJSON), clip(wantJSON))
		}
		return got
	}
	every := func(r consumption.Request) consumption.Request {
		r.StepValue, r.WithCarbonFootprint, r.WithGlobalConsumption = 1, true, true
		return r
	}

	// March as one MONTHS step: 31 days × 10 kWh; 14 days at 0.25 (35 EUR) and 17 at 0.30 (51 EUR);
	// 31 days of subscription (March 31st, 23 hours long, is a whole day: 1 EUR).
	march := answer("March", every(consumption.Request{Start: day(3, 1), End: day(4, 1), StepUnit: consumption.UnitMonths}), consumption.PathDailyTable)
	it := march.Consumptions[0]
	if len(march.Consumptions) != 1 || *it.EnergyMeter.Total != 310_000 || it.EnergyMeter.ByTariffHeading["BASE"] != 310_000 ||
		it.Cost.ByTariffHeading["BASE"] != 86 || it.Cost.StandingCharge != 31 || it.Cost.Total != 117 ||
		*it.CarbonFootprint.Total != 310*0.06 || it.Quality != 100 || it.Status != consumption.StatusComplete ||
		it.Nature != consumption.NatureReal || !it.Aggregated || len(it.ErrorFlags) != 0 || march.ComputationPeriod != nil {
		t.Errorf("March: %+v energy %v cost %+v carbon %+v", it, *it.EnergyMeter.Total, it.Cost, it.CarbonFootprint)
	}

	// April 1st to 15th, DAYS: 10 kWh at 0.30 EUR/kWh and 1 EUR a day; the meter change flags
	// April 10th only, whose energy is still 10 kWh (the old meter's part).
	april := answer("April 1st to 15th", every(consumption.Request{Start: day(4, 1), End: day(4, 15), StepUnit: consumption.UnitDays}), consumption.PathDailyTable)
	for _, it := range april.Consumptions {
		change := it.Period.StartTime.Equal(day(4, 10))
		if *it.EnergyMeter.Total != 10_000 || it.Cost.Total != 4 || it.Aggregated ||
			slices.Contains(it.ErrorFlags, consumption.FlagMeterChange) != change {
			t.Errorf("%s: energy %v cost %v aggregated %v flags %v", it.Period.StartTime.Format(time.DateOnly),
				*it.EnergyMeter.Total, it.Cost.Total, it.Aggregated, it.ErrorFlags)
		}
	}
	if g := april.GlobalConsumption; *g.EnergyMeter.Total != 140_000 || g.Cost.Total != 56 || !slices.Equal(g.ErrorFlags, []string{consumption.FlagMeterChange}) {
		t.Errorf("April 1st to 15th, global: energy %v cost %v flags %v", *g.EnergyMeter.Total, g.Cost.Total, g.ErrorFlags)
	}

	// April 11th to 19th: the table; from the 19th on, the days around the invalidated reading
	// and the gap are interpolated: the readings answer.
	answer("April 11th to 19th", every(consumption.Request{Start: day(4, 11), End: day(4, 19), StepUnit: consumption.UnitDays}), consumption.PathDailyTable)
	answer("April 15th to 20th", every(consumption.Request{Start: day(4, 15), End: day(4, 20), StepUnit: consumption.UnitDays}), consumption.PathReadings)
	answer("April", every(consumption.Request{Start: day(4, 1), End: day(5, 1), StepUnit: consumption.UnitMonths}), consumption.PathReadings)
	answer("April 22nd to 28th", every(consumption.Request{Start: day(4, 22), End: day(4, 28), StepUnit: consumption.UnitDays}), consumption.PathReadings)
	answer("past May 1st", every(consumption.Request{Start: day(4, 28), End: day(5, 3), StepUnit: consumption.UnitDays}), consumption.PathReadings)

	// A site moved to another zone keeps its rows until they are rewritten: the readings answer.
	moved := site
	moved.Timezone = "Europe/London"
	london, _ := time.LoadLocation("Europe/London")
	lday := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 0, 0, 0, 0, london) }
	before := consumption.AnswersComputedFrom(consumption.PathReadings)
	if _, err := fast.Compute(ctx, moved, consumption.Request{Start: lday(3, 2), End: lday(3, 10), StepUnit: consumption.UnitDays, StepValue: 1}); err != nil {
		t.Fatal(err)
	}
	if consumption.AnswersComputedFrom(consumption.PathReadings) != before+1 {
		t.Error("rows of another zone answered")
	}
}

// TestDailyPathRemembersSitesItCannotAnswer: a site read at 06:00 UTC every day has days of
// two reading intervals each, which the table never answers: its first request reads the
// table and the readings, the next ones the readings only, until its data changes. A period
// past a midnight site's data is that period's matter: the table is read every time.
func TestDailyPathRemembersSitesItCannotAnswer(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	for _, s := range []struct {
		id    string
		first time.Time
	}{{"MORNING", time.Date(2024, 5, 1, 6, 0, 0, 0, time.UTC)}, {"MIDNIGHT", time.Date(2024, 5, 1, 0, 0, 0, 0, paris)}} {
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: s.id, Timezone: "Europe/Paris"}); err != nil {
			t.Fatal(err)
		}
		for i := range 11 {
			ts := s.first.AddDate(0, 0, i)
			if err := b.Append("acme", s.id, "P-"+s.id, ts, uint8(0), "MKT_SMART_DISTRIBUTOR", ts, "1", int64(1000*i), "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, 0.06)
	table := New(db, reg, engine)
	spans, err := table.Spans(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}
	queries := func(siteID string, from, to time.Time) int64 {
		t.Helper()
		site, err := reg.Site(ctx, "acme", siteID)
		if err != nil {
			t.Fatal(err)
		}
		cctx, count := schema.CountQueries(ctx)
		res, err := engine.Compute(cctx, site, consumption.Request{Start: from, End: to, StepUnit: consumption.UnitDays, StepValue: 1})
		if err != nil || len(res.Consumptions) == 0 {
			t.Fatalf("%s: %v", siteID, err)
		}
		return count()
	}
	day := func(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, paris) }
	first := queries("MORNING", day(2), day(6))
	if again := queries("MORNING", day(3), day(8)); again != first-1 {
		t.Errorf("MORNING: %d queries, then %d; want one less (no table read)", first, again)
	}
	reg.Versions.Bump("acme", "MORNING")
	if changed := queries("MORNING", day(2), day(6)); changed != first {
		t.Errorf("MORNING after a data change: %d queries, want %d (the table read again)", changed, first)
	}
	past := queries("MIDNIGHT", day(5), day(20))
	if again := queries("MIDNIGHT", day(5), day(20)); again != past {
		t.Errorf("MIDNIGHT past its data: %d queries, then %d; want the table read each time", past, again)
	}
	before := consumption.AnswersComputedFrom(consumption.PathDailyTable)
	if queries("MIDNIGHT", day(2), day(8)) != 1 || consumption.AnswersComputedFrom(consumption.PathDailyTable) != before+1 {
		t.Error("MIDNIGHT within its data: not one query of the daily table")
	}
}
