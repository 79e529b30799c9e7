package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// The generated indexes and curves tell the same story: over every local day, each dial's index
// increase equals the curve energy (W × 0.5 h) of that dial's hours; and the engine finds the
// curve's year total from the indexes at MONTHS and at DAYS.
func TestGeneratedDataIsConsistent(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	spec := Spec{Sites: 2, Year: 2024}
	if err := Generate(ctx, db, reg, spec, nil); err != nil {
		t.Fatal(err)
	}
	if err := Optimize(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := Settle(ctx, db); err != nil { // nothing left to merge
		t.Fatal(err)
	}
	if ok, err := Present(ctx, db, spec); err != nil || !ok {
		t.Fatalf("Present after Generate and Optimize: %v %v", ok, err)
	}
	if spec.PointsPerSite() != 366*48 || spec.IndexesPerSite() != 2*367 {
		t.Fatalf("sizes: %d points, %d indexes", spec.PointsPerSite(), spec.IndexesPerSite())
	}

	// Per site, local day and dial: index(next midnight) - index(midnight) = curve Wh of the day's
	// points in the dial's hours. Counted in SQL over the whole year; every day must match.
	var days, mismatches uint64
	err := db.Conn.QueryRow(ctx, `
SELECT count(), countIf(idx != curve) FROM (
  SELECT site_id, day, dial, any(d) AS idx FROM (
    SELECT site_id, dial, arrayPopBack(tss) AS days, arrayPopFront(arrayDifference(vs)) AS ds FROM (
      SELECT site_id, dial, groupArray(toDate(ts, 'Europe/Paris')) AS tss, groupArray(value) AS vs
      FROM (SELECT site_id, dial, ts, value FROM elec_indexes WHERE tenant_id = ? ORDER BY site_id, dial, ts)
      GROUP BY site_id, dial)
  ) ARRAY JOIN days AS day, ds AS d
  GROUP BY site_id, day, dial
) ANY INNER JOIN (
  SELECT site_id, toDate(begin_ts, 'Europe/Paris') AS day,
    if(toHour(begin_ts, 'Europe/Paris') >= 22 OR toHour(begin_ts, 'Europe/Paris') < 6, '1', '2') AS dial,
    sum(intDiv(value, 2)) AS curve
  FROM load_curve_points WHERE tenant_id = ?
  GROUP BY site_id, day, dial
) USING (site_id, day, dial)`, Tenant, Tenant).Scan(&days, &mismatches)
	if err != nil {
		t.Fatal(err)
	}
	if days != 2*366*2 || mismatches != 0 {
		t.Fatalf("%d site-days-dials compared (want %d), %d differ", days, 2*366*2, mismatches)
	}

	// The engine reads the same year from the indexes at MONTHS and DAYS.
	site, err := reg.Site(ctx, Tenant, SiteID(1))
	if err != nil {
		t.Fatal(err)
	}
	loc := site.Location()
	eng := consumption.NewEngine(db, reg, 0.052)
	year := func(unit string) float64 {
		res, err := eng.Compute(ctx, site, consumption.Request{
			Start: time.Date(2024, 1, 1, 0, 0, 0, 0, loc), End: time.Date(2025, 1, 1, 0, 0, 0, 0, loc),
			StepUnit: unit, StepValue: 1, IndexStrategy: consumption.StrategySurroundingEstimated,
		})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, c := range res.Consumptions {
			if c.EnergyMeter.Total == nil || c.Status != consumption.StatusComplete {
				t.Fatalf("%s step %v: %+v", unit, c.Period.StartTime, c)
			}
			sum += *c.EnergyMeter.Total
		}
		return sum
	}
	var curveWh int64
	if err := db.Conn.QueryRow(ctx, "SELECT toInt64(sum(intDiv(value, 2))) FROM load_curve_points WHERE tenant_id = ? AND site_id = ?", Tenant, SiteID(1)).Scan(&curveWh); err != nil {
		t.Fatal(err)
	}
	if m, d := year(consumption.UnitMonths), year(consumption.UnitDays); m != float64(curveWh) || d != float64(curveWh) {
		t.Errorf("year from indexes: MONTHS %.0f Wh, DAYS %.0f Wh; curve %d Wh", m, d, curveWh)
	}
}
