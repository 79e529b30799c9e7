package consumption

import (
	"context"
	"fmt"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// curveIntervalsSQL sums the site's load curve over a grid of equal intervals of ? seconds from
// ? (Unix seconds), ? intervals: the winning point per begin (latest generation; ties resolve as
// in resolvePoints: the later end, the higher value, the higher reliability), clipped to each
// interval it overlaps. Per interval, in interval order: the W·s and the begin of each piece in
// order of start, then begin (a point gives one piece per interval; equal starts, which only
// overlapping points have, must still sort the same on every ClickHouse version), the covered and the real (reliability
// 0) seconds as sums of the pieces, whether a piece is unreliable, the first and last covered
// second, the range of pod hashes, and whether the pieces are disjoint (the sums are the
// coverage only then). The bound values, in order: grid start and interval length, those
// again and the interval count, those twice more, then tenant, site, earliest begin, grid end
// and grid start as times.
func curveIntervalsSQL(table string) string {
	return `SELECT toInt64(j) AS interval_index, sum(y - x) AS covered_s, sumIf(y - x, r = 0) AS real_s,
  max(r) AS unreliable, min(ph_lo) AS pod_lo, max(ph_hi) AS pod_hi, min(x) AS first_s, max(y) AS last_s,
  arraySort((p, q) -> q, groupArray(toInt64(b)), groupArray(tuple(x, b))) AS piece_begins,
  arraySort((p, q) -> q, groupArray(ws), groupArray(tuple(x, b))) AS piece_ws,
  arrayAll((a, c) -> a >= c, arrayPopFront(arraySort(groupArray(x))), arrayPopBack(arraySort((p, q) -> q, groupArray(y), groupArray(x)))) AS disjoint
FROM (
  SELECT b, r, ph_lo, ph_hi, greatest(intDiv(toInt64(b) - ?, ?), 0) AS lo,
    arrayJoin(arrayMap(i -> lo + i, range(toUInt64(least(intDiv(toInt64(e) - ? - 1, ?) + 1, ?) - lo)))) AS j,
    greatest(toInt64(b), ? + j * ?) AS x, least(toInt64(e), ? + (j + 1) * ?) AS y, v * (y - x) AS ws
  FROM (
    SELECT ` + tables.BeginTS + ` AS b,
      argMax(tuple(` + tables.List(tables.EndTS, tables.Value, tables.Reliability) + `), tuple(` + tables.List(tables.GenerationTS, tables.EndTS, tables.Value, tables.Reliability) + `)) AS w,
      w.1 AS e, w.2 AS v, w.3 AS r, min(cityHash64(` + tables.PodID + `)) AS ph_lo, max(cityHash64(` + tables.PodID + `)) AS ph_hi
    FROM ` + table + `
    WHERE ` + tables.TenantID + ` = ? AND ` + tables.SiteID + ` = ? AND ` + tables.BeginTS + ` >= ? AND ` + tables.BeginTS + ` < ? AND ` + tables.EndTS + ` > ?
    GROUP BY ` + tables.BeginTS + `)
  WHERE e > b)
GROUP BY j ORDER BY j`
}

// curveInterval is one row of curveIntervalsSQL: the load curve inside interval j of the grid.
type curveInterval struct {
	j             int64
	covered, real int64 // seconds
	unreliable    uint8
	podLo, podHi  uint64
	first, last   int64   // Unix seconds
	begins        []int64 // Unix seconds, one per piece, by start
	ws            []int64 // W·s, one per piece, by start
	disjoint      uint8
}

// readCurveIntervals reads the site's load curve summed over the grid. ok is false when the
// sums cannot stand for the pieces the engine would cut: points of several pods (their
// coverage is a union, and their pieces are priced pod by pod), or overlapping points.
func readCurveIntervals(ctx context.Context, db *schema.DB, tenantID, siteID string, g curveGrid) (rows []curveInterval, ok bool, err error) {
	site := db.ReadSite(tenantID, siteID)
	start, step := g.start.Unix(), g.step
	res, err := site.Conn.Query(ctx, curveIntervalsSQL(site.Table(tables.LoadCurvePoints)),
		start, step, start, step, g.count, start, step, start, step,
		tenantID, siteID, g.start.Add(-loadCurveLookback).UTC(), g.end().UTC(), g.start.UTC())
	if err != nil {
		return nil, false, fmt.Errorf("load curve by interval: %w", err)
	}
	defer res.Close()
	for res.Next() {
		rows = append(rows, curveInterval{})
		r := &rows[len(rows)-1]
		if err := res.Scan(&r.j, &r.covered, &r.real, &r.unreliable, &r.podLo, &r.podHi, &r.first, &r.last, &r.begins, &r.ws, &r.disjoint); err != nil {
			return nil, false, fmt.Errorf("load curve by interval: %w", err)
		}
		if r.podLo != r.podHi || r.podLo != rows[0].podLo || r.disjoint == 0 {
			return nil, false, nil
		}
	}
	if err := res.Err(); err != nil {
		return nil, false, fmt.Errorf("load curve by interval: %w", err)
	}
	return rows, true, nil
}

// curveGrid is [start, start + count × step seconds): equal intervals, each inside one step, one
// time-of-use heading and one local day.
type curveGrid struct {
	start time.Time
	step  int64 // seconds
	count int64
}

func (g curveGrid) at(j int64) time.Time { return g.start.Add(time.Duration(j*g.step) * time.Second) }
func (g curveGrid) end() time.Time       { return g.at(g.count) }
