package query

import (
	"context"
	"fmt"
	"sort"
	"time"

	"energy/schema"
)

// loadCurvePoint is one resolved load-curve point: average power W over [begin, end).
type loadCurvePoint struct {
	pod        string
	begin, end time.Time
	watts      int64
	unreliable bool // reliability 1: potentially subject to verification
}

// loadCurveLookback is how far before the period start a point may begin and still reach into
// the period (points last minutes; a day is generous).
const loadCurveLookback = 24 * time.Hour

// resolvedLoadCurveSQL reads the site's points reaching into [from, to): per (pod, begin) the
// point of the latest generation wins (a beginTs and an endTs point of the same interval are the
// same point). No FINAL (costly on 18.16) and no dependence on merges: LIMIT 1 BY keeps one whole
// row, re-sent identical rows count once, and ties of a generation resolve deterministically.
const resolvedLoadCurveSQL = `
SELECT pod_id, begin_ts, end_ts, value, reliability
FROM load_curve_points
WHERE tenant_id = ? AND site_id = ? AND begin_ts >= ? AND begin_ts < ? AND end_ts > ?
ORDER BY pod_id, begin_ts, generation_ts DESC, end_ts DESC, value DESC, reliability DESC
LIMIT 1 BY pod_id, begin_ts`

// resolveLoadCurve returns the winning load-curve points reaching into [from, to), sorted by pod
// and begin.
func resolveLoadCurve(ctx context.Context, db *schema.DB, tenantID, siteID string, from, to time.Time) ([]loadCurvePoint, error) {
	from, to = from.UTC(), to.UTC()
	rows, err := db.Conn.Query(ctx, resolvedLoadCurveSQL, tenantID, siteID, from.Add(-loadCurveLookback), to, from)
	if err != nil {
		return nil, fmt.Errorf("resolve load curve: %w", err)
	}
	defer rows.Close()
	var out []loadCurvePoint
	for rows.Next() {
		var (
			p loadCurvePoint
			r uint8
		)
		if err := rows.Scan(&p.pod, &p.begin, &p.end, &p.watts, &r); err != nil {
			return nil, fmt.Errorf("resolve load curve: %w", err)
		}
		if !p.end.After(p.begin) {
			continue
		}
		p.unreliable = r != 0
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resolve load curve: %w", err)
	}
	return out, nil
}

// loadCurvePieces spreads the points over the steps (sorted, contiguous): energy = W × hours of
// the part of the point inside the step (a point straddling a boundary is prorated), split into
// tariff headings by the time-of-use schedule. A missing point is missing data: no piece.
func loadCurvePieces(points []loadCurvePoint, steps []Step, tou *timeOfUse) [][]piece {
	out := make([][]piece, len(steps))
	for _, p := range points {
		first := sort.Search(len(steps), func(i int) bool { return steps[i].End.After(p.begin) })
		for k := first; k < len(steps) && steps[k].Start.Before(p.end); k++ {
			from, to := maxTime(p.begin, steps[k].Start), minTime(p.end, steps[k].End)
			if !to.After(from) {
				continue
			}
			src := sourceKey{p.pod, p.begin.Unix(), p.end.Unix()}
			tou.split(from, to, func(a, b time.Time, heading string) {
				out[k] = append(out[k], piece{
					start: a, end: b, heading: heading,
					wh:        float64(p.watts) * b.Sub(a).Hours(),
					estimated: p.unreliable, unreliable: p.unreliable, loadCurve: true, source: src,
				})
			})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
