package consumption

import (
	"context"
	"testing"
	"time"

	"energy/bench"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestAnswersUnchangedOnBenchData pins the exact bytes of answers on the benchmark's data (one
// site, a year of 30-minute points and daily indexes, the HPHC tariff with a price change on
// August 1st): changes to the engine and its encoder must not change a byte. The answers are in
// testdata/answers, one item a line; -update rewrites them.
func TestAnswersUnchangedOnBenchData(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, bench.Tenant, bench.SiteID(0))
	if err != nil {
		t.Fatal(err)
	}
	engine := NewEngine(db, reg, DefaultCarbonCoefficient)
	engine.now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, parisLoc) }
	year := Request{Start: at(2024, 1, 1), End: at(2025, 1, 1), StepValue: 1}
	with := func(unit string, f func(*Request)) Request {
		r := year
		r.StepUnit = unit
		if f != nil {
			f(&r)
		}
		return r
	}
	everything := func(r *Request) {
		r.WithCarbonFootprint, r.WithRatioByTariffHeading, r.WithGlobalConsumption = true, true, true
	}
	cases := []struct {
		name string
		req  Request
	}{
		{"HOURS window", with(UnitHours, nil)},
		{"DAYS year", with(UnitDays, nil)},
		{"MONTHS year", with(UnitMonths, nil)},
		{"HOURS spring DST window, every option", with(UnitHours, func(r *Request) { r.Start = at(2024, 3, 1); everything(r) })},
		{"HOURS fall DST window, every option", with(UnitHours, func(r *Request) { r.Start = at(2024, 10, 1); everything(r) })},
		{"DAYS year, every option", with(UnitDays, everything)},
		{"MINUTES 15 across a price change", with(UnitMinutes, func(r *Request) {
			r.Start, r.End, r.StepValue = at(2024, 7, 31), at(2024, 8, 2), 15
		})},
	}
	for _, c := range cases {
		res, err := engine.Compute(ctx, site, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, err := EncodeJSON(res)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkGolden(t, c.name, body)
	}
}
