package consumption

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"energy/bench"
)

// referencePointsSQL is the point resolution as ClickHouse computed it before it moved to Go
// (resolvePoints), kept as the reference the Go resolution must match.
const referencePointsSQL = `
SELECT pod_id, begin_ts, end_ts, value, reliability
FROM load_curve_points
WHERE tenant_id = ? AND site_id = ? AND begin_ts >= ? AND begin_ts < ? AND end_ts > ?
ORDER BY pod_id, begin_ts, generation_ts DESC, end_ts DESC, value DESC, reliability DESC
LIMIT 1 BY pod_id, begin_ts`

// TestResolvePointsMatchesSQL: random points crowded on few begins, generations, ends and values
// (re-sent duplicates and empty intervals included) resolve in Go as the reference SQL did.
func TestResolvePointsMatchesSQL(t *testing.T) {
	f := newConsumptionFixture(t)
	rnd := rand.New(rand.NewPCG(7, 3))
	base := pd("2024-03-01")
	var pts []lcPoint
	for range 2000 {
		begin := base.Add(time.Duration(rnd.IntN(200)) * 10 * time.Minute)
		p := lcPoint{
			begin:       begin,
			end:         begin.Add(time.Duration(rnd.IntN(3)) * 10 * time.Minute), // an empty one now and then
			watts:       int64(rnd.IntN(4)) * 100,
			reliability: uint8(rnd.IntN(2)),
			gen:         begin.Add(time.Duration(1+rnd.IntN(3)) * time.Hour),
		}
		pts = append(pts, p)
		if rnd.IntN(5) == 0 {
			pts = append(pts, p)
		}
	}
	f.loadCurve(pts[:len(pts)/2]...)
	f.loadCurve(pts[len(pts)/2:]...)

	ctx := context.Background()
	from, to := base.Add(3*time.Hour).UTC(), base.Add(30*time.Hour).UTC()
	got, err := resolveLoadCurve(ctx, f.db, fxTenant, fxSite, from, to)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.db.Conn.Query(ctx, referencePointsSQL, fxTenant, fxSite, from.Add(-loadCurveLookback), to, from)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []loadCurvePoint
	for rows.Next() {
		var (
			p loadCurvePoint
			r uint8
		)
		if err := rows.Scan(&p.pod, &p.begin, &p.end, &p.watts, &r); err != nil {
			t.Fatal(err)
		}
		if p.end.After(p.begin) {
			p.unreliable = r != 0
			want = append(want, p)
		}
	}
	if len(want) < 100 {
		t.Fatalf("only %d resolved points, the data is too thin to compare", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Go resolution differs from the SQL one (%d vs %d points)", len(got), len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("first difference at %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
	}
}

// BenchmarkLoadCurvePieces is the cutting of a 1,200-hour window of 30-minute points into the
// hours' pieces under the benchmark's HPHC schedule: the load-curve part of a computed HOURS
// answer between the read and the items.
func BenchmarkLoadCurvePieces(b *testing.B) {
	tariff := bench.Tariff(2024)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, parisLoc)
	var points []loadCurvePoint
	for t := start.UTC(); t.Before(start.Add(1200 * time.Hour)); t = t.Add(30 * time.Minute) {
		points = append(points, loadCurvePoint{pod: "PDL1", begin: t, end: t.Add(30 * time.Minute), watts: 500})
	}
	steps, _ := Steps(start, start.Add(1200*time.Hour), parisLoc, UnitHours, 1, MaxSteps)
	b.ReportAllocs()
	for b.Loop() {
		pieces := loadCurvePieces(points, steps, newTimeOfUse(&tariff, parisLoc, nil))
		if len(pieces) != 1200 || len(pieces[0]) != 2 {
			b.Fatal(len(pieces))
		}
	}
}
