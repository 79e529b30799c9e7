package consumption

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"energy/schema"
	"energy/schema/tables"
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

// candidatePointsSQL reads the site's stored points reaching into [from, to), every generation;
// its arguments are the site, the tenant and the three instants. The winner per (pod, begin) is
// chosen in Go (resolvePoints): sorting a window's few thousand rows there is cheaper than
// ClickHouse's ORDER BY … LIMIT 1 BY on 18.16. No FINAL (costly on 18.16) and no dependence on
// merges: re-sent identical rows count once. The table is the argument: the site's reader names
// it (schema.SiteReader.Table).
//
// The site is a PREWHERE: the primary key narrows the read to the granules holding the site
// (whole 8,192-row granules of the monthly parts, shared with other sites: about 20,000 rows
// for a 1,200-hour window), and ClickHouse 18.16 does not move conditions on key columns to
// PREWHERE by itself: without it every read column was filtered over all those rows, with it
// only site_id is and the other columns keep the site's rows alone. Measured on the 1,000-site
// benchmark data set (system.query_log, the same 20,842 rows and granules read): 448 KiB of
// rows read against 1,465 KiB, the query's threads' CPU 5.05 ms against 5.27 ms, and the
// read through clickhouse-go, rows scanned, p50 6.08 ms against 6.41 ms (1,000 interleaved
// rounds on random sites, load average 4.5).
func candidatePointsSQL(table string) string {
	return "SELECT " +
		tables.List(tables.PodID, tables.BeginTS, tables.EndTS, tables.GenerationTS, tables.Value, tables.Reliability) +
		" FROM " + table +
		" PREWHERE " + tables.SiteID + " = ?" +
		" WHERE " + tables.TenantID + " = ? AND " + tables.BeginTS + " >= ? AND " + tables.BeginTS + " < ? AND " + tables.EndTS + " > ?"
}

// maxPresizedPoints bounds the room made before reading a load curve (a year of 30-minute points
// and its lookback): a longer read grows from there.
const maxPresizedPoints = 366*48 + 64

// storedPoint is one stored load-curve row, its instants as Unix seconds (DateTime columns hold
// whole seconds): half the size of time.Time fields, and compared in one instruction by the sort
// of resolvePoints, a third of the read's CPU with them.
type storedPoint struct {
	pod                    string
	begin, end, generation int64
	watts                  int64
	reliability            uint8
}

// resolveLoadCurve returns the winning load-curve points reaching into [from, to), sorted by pod
// and begin.
func resolveLoadCurve(ctx context.Context, db *schema.DB, tenantID, siteID string, from, to time.Time) ([]loadCurvePoint, error) {
	from, to = from.UTC(), to.UTC()
	site := db.ReadSite(tenantID, siteID)
	rows, err := site.Conn.Query(ctx, candidatePointsSQL(site.Table(tables.LoadCurvePoints)), siteID, tenantID, from.Add(-loadCurveLookback), to, from)
	if err != nil {
		return nil, fmt.Errorf("resolve load curve: %w", err)
	}
	defer rows.Close()
	// Room for one pod's 30-minute points (the distributors' usual step) over the read span:
	// grown by append from empty, a window's few thousand rows would be allocated about five
	// times over, half of a computed HOURS answer's garbage.
	stored := make([]storedPoint, 0, min(int(to.Sub(from.Add(-loadCurveLookback))/(30*time.Minute))+16, maxPresizedPoints))
	// One row's columns, scanned through one slice of destinations made once: Scan's variadic
	// arguments escape (an interface method), so a slice built per call was one allocation per
	// row, a fifth of a computed HOURS answer's.
	var (
		row                    storedPoint
		begin, end, generation time.Time
	)
	dest := []any{&row.pod, &begin, &end, &generation, &row.watts, &row.reliability}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("resolve load curve: %w", err)
		}
		row.begin, row.end, row.generation = begin.Unix(), end.Unix(), generation.Unix()
		if n := len(stored); n > 0 && row.pod == stored[n-1].pod {
			row.pod = stored[n-1].pod // one string per pod in the points kept, not one per row
		}
		stored = append(stored, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resolve load curve: %w", err)
	}
	return resolvePoints(stored), nil
}

// resolvePoints keeps per (pod, begin) the point of the latest generation (a beginTs and an
// endTs point of the same interval are the same point); ties of a generation resolve
// deterministically (the later end, the higher value, the higher reliability). Points that
// do not last are dropped. It sorts stored in place.
func resolvePoints(stored []storedPoint) []loadCurvePoint {
	// A total order of the records (equal ones are identical), so any sort gives the same.
	slices.SortFunc(stored, func(a, b storedPoint) int {
		if a.pod != b.pod {
			return strings.Compare(a.pod, b.pod)
		}
		if c := cmp.Compare(a.begin, b.begin); c != 0 {
			return c
		}
		if c := cmp.Compare(b.generation, a.generation); c != 0 {
			return c
		}
		if c := cmp.Compare(b.end, a.end); c != 0 {
			return c
		}
		if c := cmp.Compare(b.watts, a.watts); c != 0 {
			return c
		}
		return cmp.Compare(b.reliability, a.reliability)
	})
	out := make([]loadCurvePoint, 0, len(stored))
	for i := range stored {
		p := &stored[i]
		if i > 0 && p.begin == stored[i-1].begin && p.pod == stored[i-1].pod {
			continue // an older or equal record of the point kept just before
		}
		if p.end <= p.begin {
			continue
		}
		out = append(out, loadCurvePoint{
			pod: p.pod, begin: time.Unix(p.begin, 0).UTC(), end: time.Unix(p.end, 0).UTC(),
			watts: p.watts, unreliable: p.reliability != 0,
		})
	}
	return out
}

// loadCurvePieces spreads the points over the steps (sorted, contiguous): energy = W × duration of
// the part of the point inside the step (a point straddling a boundary is prorated), split into
// tariff headings by the time-of-use schedule. A missing point is missing data: no piece.
func loadCurvePieces(points []loadCurvePoint, steps []Step, tou *timeOfUse) [][]piece {
	out := make([][]piece, len(steps))
	// One allocation for the usual pieces of every step (its share of the points, plus one for
	// a heading change); a step that needs more grows out of its slot (the capacity is capped).
	per := (len(points)+len(steps)-1)/len(steps) + 1
	slab := make([]piece, len(steps)*per)
	for k := range out {
		out[k] = slab[k*per : k*per : (k+1)*per]
	}
	first := 0
	for _, p := range points {
		// The first step ending after the point's begin: usually the previous point's or the
		// next one (points are sorted by begin within a pod), else a binary search.
		switch {
		case first < len(steps) && steps[first].End.After(p.begin) && (first == 0 || !steps[first-1].End.After(p.begin)):
		case first+1 < len(steps) && steps[first+1].End.After(p.begin) && !steps[first].End.After(p.begin):
			first++
		default:
			first = sort.Search(len(steps), func(i int) bool { return steps[i].End.After(p.begin) })
		}
		for k := first; k < len(steps) && steps[k].Start.Before(p.end); k++ {
			from, to := maxTime(p.begin, steps[k].Start), minTime(p.end, steps[k].End)
			if !to.After(from) {
				continue
			}
			src := sourceKey{p.pod, p.begin.Unix(), p.end.Unix()}
			tou.split(from, to, func(a, b time.Time, heading string) {
				out[k] = append(out[k], piece{
					start: a, end: b, heading: heading, watts: p.watts,
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
