package consumption

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"energy/bench"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// Randomized load curves of many sites: several points of delivery, points of 10 to 60 minutes
// not aligned on hours, re-sent generations with other values and durations, reliability 1,
// gaps, several time zones, with and without an HPHC tariff (time-of-use split, a price change).
// The by-site table the engine reads is filled by its view on insert; the answers must equal
// those computed from the raw monthly table, for HOURS, MINUTES and DAYS steps, also after the
// by-site table is emptied and rebuilt.

type randomPoint struct {
	site, pod   string
	begin, end  time.Time
	gen         time.Time
	watts       int64
	reliability uint8
}

// randomSitePoints draws the stored points of one site.
func randomSitePoints(rng *rand.Rand, site string) []randomPoint {
	var out []randomPoint
	durations := []time.Duration{10 * time.Minute, 15 * time.Minute, 30 * time.Minute, 60 * time.Minute}
	for p := range 1 + rng.IntN(2) {
		pod := fmt.Sprintf("P%d", p)
		d := durations[rng.IntN(len(durations))]
		// Around the March DST change of Europe and America, aligned on d or off by a few minutes.
		t := time.Date(2024, 3, 5+rng.IntN(5), rng.IntN(24), 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(3)*7) * time.Minute)
		end := t.Add(time.Duration(20+rng.IntN(20)) * 24 * time.Hour)
		for t.Before(end) {
			pt := randomPoint{site: site, pod: pod, begin: t, end: t.Add(d), gen: t.Add(time.Duration(1+rng.IntN(48)) * time.Hour), watts: int64(rng.IntN(9000))}
			if rng.IntN(25) == 0 {
				pt.reliability = 1
			}
			out = append(out, pt)
			if rng.IntN(10) == 0 { // a later generation of the point: another value, sometimes another end
				again := pt
				again.gen, again.watts = pt.gen.Add(time.Duration(1+rng.IntN(24))*time.Hour), int64(rng.IntN(9000))
				if rng.IntN(3) == 0 {
					again.end = pt.begin.Add(d / 2)
				}
				out = append(out, again)
			}
			if rng.IntN(15) == 0 { // an older generation arriving too
				old := pt
				old.gen, old.watts = pt.gen.Add(-time.Hour), int64(rng.IntN(9000))
				out = append(out, old)
			}
			t = t.Add(d)
			if rng.IntN(200) == 0 { // a gap of hours to days
				t = t.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
			}
		}
	}
	return out
}

func insertRandomPoints(t *testing.T, db *schema.DB, tenant string, pts []randomPoint) {
	t.Helper()
	ctx := context.Background()
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if err := b.Append(tenant, p.site, p.pod, p.begin, p.end, p.gen, p.watts, p.reliability, p.begin, "random"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}

// randomLoadCurveRequests draws requests answered from the load curve, over the site's points
// and around them.
func randomLoadCurveRequests(rng *rand.Rand, loc *time.Location) []Request {
	var out []Request
	for _, unit := range []string{UnitHours, UnitHours, UnitMinutes, UnitDays} {
		start := time.Date(2024, 3, 3+rng.IntN(20), rng.IntN(24), 15*rng.IntN(4), 0, 0, loc)
		req := Request{Fluid: FluidElec, Start: start, StepUnit: unit, StepValue: 1 + rng.IntN(3)*rng.IntN(2),
			WithGlobalConsumption: rng.IntN(2) == 0, WithRatioByTariffHeading: rng.IntN(2) == 0}
		switch unit {
		case UnitHours:
			req.End = start.Add(time.Duration(24+rng.IntN(1300)) * time.Hour)
		case UnitMinutes:
			req.StepValue = []int{5, 10, 15, 30, 45}[rng.IntN(5)]
			req.End = start.Add(time.Duration(1+rng.IntN(3)) * 24 * time.Hour)
		case UnitDays:
			req.DataSources = []string{SourceLoadCurve} // every step from the load curve
			req.End = start.AddDate(0, 0, 3+rng.IntN(40))
		}
		out = append(out, req)
	}
	return out
}

func TestLoadCurveBySiteAnswersAsTheRawTable(t *testing.T) {
	began := time.Now()
	db := chtest.DB(t)
	ctx := context.Background()
	reg := registry.New(db)
	if err := reg.PutTariff(ctx, bench.Tariff(2024)); err != nil {
		t.Fatal(err)
	}
	bySite := NewEngine(db, reg, 0.06)
	raw := NewEngine(db, reg, 0.06)
	raw.rawReadings = true

	rng := rand.New(rand.NewPCG(25, 2026))
	zones := []string{"Europe/Paris", "America/New_York", "UTC"}
	var sites []registry.Site
	var all []randomPoint
	for i := range 9 {
		s := registry.Site{TenantID: bench.Tenant, SiteID: fmt.Sprintf("L%02d", i), Timezone: zones[i%len(zones)]}
		if i%2 == 0 {
			s.TariffID = bench.TariffID
		}
		sites = append(sites, s)
		all = append(all, randomSitePoints(rng, s.SiteID)...)
	}
	// As two archives, the second one replaying part of the first.
	half := len(all) / 2
	insertRandomPoints(t, db, bench.Tenant, all[:half+len(all)/4])
	insertRandomPoints(t, db, bench.Tenant, all[half:])
	rawRows := waitForSameRows(t, db, loadCurveTables, 0)
	t.Logf("stored %d distinct points, %s", rawRows, time.Since(began))

	compare := func(label string) {
		t.Helper()
		compared, withData := 0, 0
		for _, s := range sites {
			for _, req := range randomLoadCurveRequests(rng, s.Location()) {
				a := sameAnswer(t, label, bySite, raw, s, req)
				compared++
				for _, c := range a.Consumptions {
					if c.UsingLoadCurve {
						withData++
						break
					}
				}
			}
		}
		if withData < compared*2/3 {
			t.Fatalf("%s: only %d of %d answers come from the load curve: the data is too thin to compare", label, withData, compared)
		}
		t.Logf("%s: %d answers identical (%d from the load curve), %s", label, compared, withData, time.Since(began))
	}
	compare("after ingest")

	// Emptied, the by-site table answers nothing; rebuilt from the raw one, the same again.
	truncate(t, db, loadCurveTables.bySite...)
	req := Request{Fluid: FluidElec, Start: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), DataSources: []string{SourceLoadCurve}}
	if res, err := bySite.Compute(ctx, sites[0], req); err != nil || res.Consumptions[0].EnergyMeter.Total != nil {
		t.Fatalf("emptied by-site table: %+v, %v; want no energy", res.Consumptions[0].EnergyMeter, err)
	}
	copied, err := db.RebuildReadingsBySite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if copied["load_curve_points_by_site"] < rawRows {
		t.Fatalf("rebuild copied %d points, want at least the %d distinct ones", copied["load_curve_points_by_site"], rawRows)
	}
	waitForSameRows(t, db, loadCurveTables, rawRows)
	compare("after rebuild")
}
