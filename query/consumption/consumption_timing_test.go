package consumption

import (
	"context"
	"testing"
	"time"

	"energy/bench"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// BenchmarkHoursWindowCPU is the Go part of a computed HOURS answer on the benchmark's data (a
// 1,200-hour window of 30-minute points, the HPHC tariff with a price change): pieces, items
// with cost, and the JSON encoding; no ClickHouse.
func BenchmarkHoursWindowCPU(b *testing.B) {
	tariff := bench.Tariff(2024)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, parisLoc)
	var points []loadCurvePoint
	for t := start.UTC(); t.Before(start.Add(1200 * time.Hour)); t = t.Add(30 * time.Minute) {
		points = append(points, loadCurvePoint{pod: "PDL1", begin: t, end: t.Add(30 * time.Minute), watts: 500 + int64(t.Minute())*10})
	}
	end := time.Date(2025, 1, 1, 0, 0, 0, 0, parisLoc)
	b.ReportAllocs()
	for b.Loop() {
		steps, truncated := Steps(start, end, parisLoc, UnitHours, 1, MaxSteps)
		tou := newTimeOfUse(&tariff, parisLoc, nil)
		ib := &itemBuilder{loc: parisLoc, tariff: &tariff, pricing: newPricing(&tariff, parisLoc)}
		res := &ConsumptionResult{Period: Period{start, end}, Consumptions: make([]Consumption, len(steps))}
		pieces := loadCurvePieces(points, steps, tou)
		for k, st := range steps {
			res.Consumptions[k] = ib.build(st, pieces[k])
		}
		first, last := piecesSpan(pieces)
		res.ComputationPeriod = computationPeriod(first, last, start, end, steps[len(steps)-1].End, truncated, parisLoc)
		if _, err := EncodeJSON(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHoursWindowLoadCurve is the ClickHouse call of a computed HOURS answer on one
// benchmark site: reading and resolving the window's 2,400 points.
func BenchmarkHoursWindowLoadCurve(b *testing.B) {
	ctx := context.Background()
	db := chtest.DB(b)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, parisLoc)
	b.ReportAllocs()
	for b.Loop() {
		points, err := resolveLoadCurve(ctx, db, bench.Tenant, bench.SiteID(0), start, start.Add(1200*time.Hour))
		if err != nil || len(points) != 2400 {
			b.Fatal(len(points), err)
		}
	}
}

// benchSiteYear is one generated benchmark site in a fresh database, the engine, and the DAYS
// request of its year.
func benchSiteYear(b *testing.B) (*Engine, registry.Site, Request) {
	ctx := context.Background()
	db := chtest.DB(b)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		b.Fatal(err)
	}
	site, err := reg.Directory.Site(ctx, bench.Tenant, bench.SiteID(0))
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Start: time.Date(2024, 1, 1, 0, 0, 0, 0, parisLoc), End: time.Date(2025, 1, 1, 0, 0, 0, 0, parisLoc), StepUnit: UnitDays, StepValue: 1}
	return NewEngine(db, reg, DefaultCarbonCoefficient), site, req
}

// BenchmarkDaysYearComputed is a computed DAYS answer of one benchmark site over its year, as
// the service makes it with its result cache off: the site's readings read from ClickHouse and
// resolved, the 366 items with cost, and the JSON encoding.
func BenchmarkDaysYearComputed(b *testing.B) {
	ctx := context.Background()
	engine, site, req := benchSiteYear(b)
	b.ReportAllocs()
	for b.Loop() {
		res, err := engine.Compute(ctx, site, req)
		if err != nil || len(res.Consumptions) != 366 {
			b.Fatal(err)
		}
		if _, err := EncodeJSON(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDaysYearCPU is the Go part of BenchmarkDaysYearComputed once the readings are read:
// the index rules, the 366 items with cost, and the JSON encoding.
func BenchmarkDaysYearCPU(b *testing.B) {
	engine, site, req := benchSiteYear(b)
	p, err := engine.plan(site, req)
	if err != nil {
		b.Fatal(err)
	}
	d, err := engine.fetch(context.Background(), site, p, p.start, p.fetchEnd)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res := p.evaluate(d)
		if _, err := EncodeJSON(res); err != nil || len(res.Consumptions) != 366 {
			b.Fatal(err)
		}
	}
}

// BenchmarkHoursWindowComputed is a computed HOURS answer (the 1,200-hour window) of one
// benchmark site with its JSON encoding, from the points resolved and cut in Go.
func BenchmarkHoursWindowComputed(b *testing.B) {
	ctx := context.Background()
	engine, site, req := benchSiteYear(b)
	req.StepUnit = UnitHours
	b.ReportAllocs()
	for b.Loop() {
		res, err := engine.Compute(ctx, site, req)
		if err != nil || len(res.Consumptions) != MaxSteps {
			b.Fatal(err)
		}
		if _, err := EncodeJSON(res); err != nil {
			b.Fatal(err)
		}
	}
}
