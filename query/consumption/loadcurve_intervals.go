package consumption

import (
	"context"
	"time"

	"energy/schema/registry"
)

// maxCurveIntervals bounds the grid of an answer computed from load-curve sums: a 1,200-hour
// window is 1,200 intervals, a year of hours with its global item 8,784. Finer grids (minutes
// over a year, boundaries a few seconds apart) are answered from points resolved in Go.
const maxCurveIntervals = 20000

// curveGridFor is the grid of [start, end) for the steps (sorted, contiguous, from start): the
// longest interval that divides the offset from start of every boundary the energy is split
// at (the steps' ends, end itself, local midnights and time-of-use changes), so that each
// interval lies in one step, one heading and one local day. ok is false for a boundary off a
// whole second or a grid of more than maxCurveIntervals intervals.
func curveGridFor(steps []Step, start, end time.Time, tou *timeOfUse) (g curveGrid, ok bool) {
	var step int64
	add := func(t time.Time) bool {
		d := t.Sub(start)
		if d <= 0 || t.After(end) {
			return true
		}
		if d%time.Second != 0 {
			return false
		}
		step = gcd(step, int64(d/time.Second))
		return true
	}
	for _, st := range steps {
		if !add(st.End) {
			return g, false
		}
	}
	if !add(end) {
		return g, false
	}
	if days := end.Sub(start) / (24 * time.Hour); days > maxCurveIntervals/24 {
		return g, false // more local days than any grid within the bound could hold
	}
	for day := tou.day(start); day.start.Before(end); day = tou.day(day.end) {
		for _, seg := range day.segments {
			if !add(seg.start) {
				return g, false
			}
		}
		if !add(day.end) || !day.end.After(day.start) {
			return g, false
		}
	}
	if step == 0 || int64(end.Sub(start)/time.Second)/step > maxCurveIntervals {
		return g, false
	}
	return curveGrid{start: start, step: step, count: int64(end.Sub(start)/time.Second) / step}, true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// curveSums adds up a step's intervals (in order) as sum adds up its pieces: covered and real
// time are the sums of the pieces' (they are disjoint), and each piece is priced as the engine
// cuts it, one part of a point per heading and local day: the consecutive pieces of one point
// under the same heading and day are joined before they are priced.
func (b *itemBuilder) curveSums(rows []curveInterval, g curveGrid, tou *timeOfUse) stepSums {
	s := stepSums{byHeading: b.byHeading[:0], costs: b.costs[:0], curve: b.curve[:0], usesLC: true}
	var (
		open    bool // a piece is pending
		begin   int64
		heading string
		day     *localDay
		ws      int64
		source  int64
	)
	for i := range rows {
		r := &rows[i]
		t := g.at(r.j)
		h := tou.headingOf(t)
		var d *localDay
		if b.pricing != nil {
			d = b.pricing.day(t)
		}
		s.covered += time.Duration(r.covered) * time.Second
		s.real += time.Duration(r.real) * time.Second
		s.unreliable = s.unreliable || r.unreliable != 0
		for k, pb := range r.begins {
			if i == 0 && k == 0 {
				source = pb
			}
			s.aggregated = s.aggregated || pb != source
			if open && pb == begin && h == heading && d == day {
				ws += r.ws[k]
				continue
			}
			if open {
				b.addCurvePiece(&s, heading, day, ws)
			}
			open, begin, heading, day, ws = true, pb, h, d, r.ws[k]
		}
	}
	if open {
		b.addCurvePiece(&s, heading, day, ws)
	}
	s.estimated = s.unreliable
	addCurveEnergy(&s)
	b.byHeading, b.costs, b.curve = s.byHeading, s.costs, s.curve
	return s
}

// curveRead is the load curve of an answer as ClickHouse summed it: its grid and the intervals
// that hold data, in order.
type curveRead struct {
	grid curveGrid
	rows []curveInterval
}

// buildFromCurve makes the items of the steps (sorted, contiguous, from the grid's start) from
// the intervals, and returns the first and last instants covered inside the steps.
func (b *itemBuilder) buildFromCurve(items []Consumption, steps []Step, c *curveRead, tou *timeOfUse) (first, last time.Time) {
	rows, i := c.rows, 0
	for k, st := range steps {
		from := i
		for i < len(rows) && c.grid.at(rows[i].j).Before(st.End) {
			i++
		}
		if from == i {
			items[k] = b.build(st, nil)
			continue
		}
		items[k] = b.item(st, b.curveSums(rows[from:i], c.grid, tou), true)
		for _, r := range rows[from:i] {
			if first.IsZero() || r.first < first.Unix() {
				first = time.Unix(r.first, 0)
			}
			if r.last > last.Unix() || last.IsZero() {
				last = time.Unix(r.last, 0)
			}
		}
	}
	return first, last
}

// readCurve reads the load curve of the plan's steps over [from, to) summed by ClickHouse on
// the grid of the steps and the tariff's headings and days; nil when that grid is refused or
// the sums cannot stand for the points (then the points are resolved and cut in Go).
func (c *Engine) readCurve(ctx context.Context, site registry.Site, p *plan, tariff *registry.Tariff, from, to time.Time) (*curveRead, error) {
	g, ok := curveGridFor(p.steps, from, to, newTimeOfUse(tariff, p.loc))
	if !ok {
		return nil, nil
	}
	rows, ok, err := readCurveIntervals(ctx, c.db, site.TenantID, site.SiteID, g)
	if err != nil || !ok {
		return nil, err
	}
	return &curveRead{grid: g, rows: rows}, nil
}
