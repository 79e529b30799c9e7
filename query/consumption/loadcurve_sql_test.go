package consumption

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"energy/schema/registry"
)

// sumsTariff is HPHC with a time-of-use change at 22:00 and 06:00 (inside points that do not
// start on the hour) and a price change at a local midnight inside the data.
func sumsTariff() registry.Tariff {
	return registry.Tariff{
		TariffID: "HPHC-SUMS", Option: registry.OptionHPHC,
		DialHeadings:   map[string]string{"1": "HC", "2": "HP"},
		HeadingGroups:  map[string]string{"HC": "HC", "HP": "HP"},
		TimeOfUse:      []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		DefaultHeading: "HP",
		Prices: []registry.PricePeriod{
			{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"HC": 0.2068, "HP": 0.27}},
			{ValidFrom: "2024-03-31", ByHeading: map[string]float64{"HC": 0.1999, "HP": 0.2833}},
			{ValidFrom: "2024-10-27", ByHeading: map[string]float64{"HC": 0.2111, "HP": 0.2901}},
		},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2024-01-01", Yearly: map[string]float64{"subscription": 151.2, "cta": 21.35}}},
	}
}

// sumsPoint is a stored load-curve row of the randomized test.
type sumsPoint struct {
	pod         string
	begin, end  time.Time
	gen         time.Time
	watts       int64
	reliability uint8
}

// randomCurve is a pod's load curve around the DST days of 2024: points of random lengths (5 to
// 60 minutes, odd ones included) one after the other with random gaps; some re-sent by a later
// generation, with another value and reliability; when overlap is true, some re-sent with
// another length as well, which makes points overlap.
func randomCurve(rnd *rand.Rand, pod string, from time.Time, n int, overlap bool) []sumsPoint {
	lengths := []int{5, 7, 10, 13, 15, 20, 30, 45, 60}
	var out []sumsPoint
	t := from
	for range n {
		if rnd.IntN(12) == 0 {
			t = t.Add(time.Duration(1+rnd.IntN(90)) * time.Minute) // a gap
		}
		end := t.Add(time.Duration(lengths[rnd.IntN(len(lengths))]) * time.Minute)
		p := sumsPoint{pod: pod, begin: t, end: end, gen: end.Add(24 * time.Hour), watts: int64(rnd.IntN(5000)), reliability: uint8(rnd.IntN(8) / 7)}
		out = append(out, p)
		switch r := rnd.IntN(10); {
		case r == 0: // a later generation of the same point: another value and reliability
			q := p
			q.gen, q.watts, q.reliability = p.gen.Add(time.Hour), int64(rnd.IntN(5000)), uint8(rnd.IntN(2))
			out = append(out, q)
		case r == 1 && overlap: // a later generation twice as long: it overlaps the next point
			q := p
			q.gen, q.end = p.gen.Add(time.Hour), p.begin.Add(2*p.end.Sub(p.begin))
			out = append(out, q)
		case r == 2: // an older generation that loses
			q := p
			q.gen, q.watts = p.gen.Add(-time.Hour), 99999
			out = append(out, q)
		}
		t = end
	}
	return out
}

func (f *consumptionFixture) storeCurve(site string, points []sumsPoint) {
	f.t.Helper()
	b, err := f.db.Conn.PrepareBatch(context.Background(), "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range points {
		y, m, d := p.begin.In(parisLoc).Date()
		if err := b.Append(fxTenant, site, p.pod, p.begin.UTC(), p.end.UTC(), p.gen.UTC(), p.watts, p.reliability, time.Date(y, m, d, 0, 0, 0, 0, time.UTC), "test"); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		f.t.Fatal(err)
	}
}

// TestLoadCurveSumsAnswerAsPoints: HOURS and MINUTES answers computed from ClickHouse's sums per
// interval are byte for byte those computed from the points resolved and cut in Go, on random
// load curves (random lengths, gaps, re-sent generations, unreliable points, DST days, a
// time-of-use change inside points, price changes at midnight), with every option; and the
// sums are what answers them when a site has one pod and no overlapping points, the points
// otherwise (several pods, overlaps).
func TestLoadCurveSumsAnswerAsPoints(t *testing.T) {
	f := newConsumptionFixture(t)
	f.tariff(sumsTariff())
	ctx := context.Background()
	viaSums := NewEngine(f.db, f.reg, 0.06).WithLoadCurveSums(true)
	viaPoints := NewEngine(f.db, f.reg, 0.06)
	rnd := rand.New(rand.NewPCG(12, 4))

	sites := []struct {
		name     string
		pods     int
		overlap  bool
		fromSums bool
	}{
		{"one pod", 1, false, true},
		{"one pod again", 1, false, true},
		{"one pod, overlapping generations", 1, true, false},
		{"two pods", 2, false, false},
	}
	starts := []time.Time{pt("2024-03-29T00:00"), pt("2024-10-25T22:00"), pt("2024-03-30T21:30")}
	requests := []Request{
		{StepUnit: UnitHours, StepValue: 1},
		{StepUnit: UnitHours, StepValue: 3, WithGlobalConsumption: true},
		{StepUnit: UnitMinutes, StepValue: 15, WithRatioByTariffHeading: true, WithCarbonFootprint: true},
		{StepUnit: UnitMinutes, StepValue: 30, WithGlobalConsumption: true, WithRatioByTariffHeading: true},
		{StepUnit: UnitHours, StepValue: 1, DataSources: []string{SourceLoadCurve}, WithoutCost: true},
	}
	for i, s := range sites {
		site := registry.Site{TenantID: fxTenant, SiteID: fmt.Sprintf("SUMS-%d", i), Timezone: "Europe/Paris", TariffID: f.site.TariffID}
		if err := f.reg.PutSite(ctx, site); err != nil {
			t.Fatal(err)
		}
		var points []sumsPoint
		for pod := range s.pods {
			for _, from := range []time.Time{pt("2024-03-29T03:00"), pt("2024-10-25T23:00")} {
				from = from.Add(time.Duration(rnd.IntN(50)) * time.Minute)
				points = append(points, randomCurve(rnd, fmt.Sprintf("PDL%d", pod), from, 400, s.overlap)...)
			}
		}
		f.storeCurve(site.SiteID, points)
		for _, start := range starts {
			for _, req := range requests {
				req.Start, req.End = start, start.Add(time.Duration(40+rnd.IntN(40))*time.Hour)
				label := fmt.Sprintf("%s, %s×%d from %s", s.name, req.StepUnit, req.StepValue, start.Format(time.RFC3339))
				p, err := viaSums.plan(site, req)
				if err != nil {
					t.Fatal(err)
				}
				d, err := viaSums.fetch(ctx, site, p, p.start, p.fetchEnd)
				if err != nil {
					t.Fatal(err)
				}
				if (d.curve != nil) != s.fromSums {
					t.Errorf("%s: answered from sums %v, want %v", label, d.curve != nil, s.fromSums)
				}
				got, err := EncodeJSON(p.evaluate(d))
				if err != nil {
					t.Fatal(err)
				}
				ref, err := viaPoints.Compute(ctx, site, req)
				if err != nil {
					t.Fatal(err)
				}
				want, err := EncodeJSON(ref)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					gl, wl := bytes.Split(goldenLines(got), []byte("\n")), bytes.Split(goldenLines(want), []byte("\n"))
					for k := range min(len(gl), len(wl)) {
						if !bytes.Equal(gl[k], wl[k]) {
							t.Errorf("%s: answers differ at line %d:\n sums   %s\n points %s", label, k, gl[k], wl[k])
							break
						}
					}
				}
			}
		}
	}
}
