package consumption

import (
	"slices"
	"sort"
	"time"
)

// piece is a part of a step's energy: the energy of one tariff heading over [start, end] inside
// the step, coming from one reading interval or one load-curve point.
type piece struct {
	start, end time.Time
	heading    string
	wh         float64 // index energy; a load-curve piece's energy is watts × its duration (wattSeconds)
	watts      int64   // load curve: the point's average power
	volume     float64 // gas: the index difference behind wh, in the answer's volume unit
	estimated  bool    // not real data: interpolated, an MKT_ESTIMATION reading, or an unreliable load-curve point
	unreliable bool    // a load-curve point with reliability 1
	negative   bool    // a reading interval whose index went down (counted 0)
	loadCurve  bool
	natures    natureSet
	source     sourceKey
}

// sourceKey names the reading interval or load-curve point a piece comes from: a step made of
// pieces of more than one source is aggregated.
type sourceKey struct {
	pod        string
	start, end int64
}

// interpolationRule tells whether an index may be interpolated at a step boundary.
type interpolationRule func(boundary time.Time) bool

// interpolationFor is the rule of a strategy: ALL_ESTIMATED anywhere, SURROUNDING_ESTIMATED only at
// the start and end of the requested period, NO_ESTIMATED never (an interpolated index is estimated).
func interpolationFor(strategy string, start, end time.Time) interpolationRule {
	switch strategy {
	case StrategyAllEstimated:
		return func(time.Time) bool { return true }
	case StrategyNoEstimated:
		return func(time.Time) bool { return false }
	}
	return func(t time.Time) bool { return t.Equal(start) || t.Equal(end) }
}

// indexPieces spreads the reading intervals over the steps (sorted, contiguous): a step takes the
// part of an interval inside it, prorated by time (the linear interpolation of the index at the
// step boundary). An interval that crosses a boundary where the rule forbids interpolation gives
// nothing to that step: the step shrinks to the readings it contains.
func indexPieces(ivs []indexInterval, steps []Step, canInterpolate interpolationRule, heading func(dial string) string) [][]piece {
	// Each step's pieces are counted first (at most one per interval it overlaps), so that
	// each step's slice is allocated once: a DAYS span of many series holds many pieces a step.
	firsts := make([]int, len(ivs))
	counts := make([]int, len(steps))
	for i := range ivs {
		iv := &ivs[i] // in place: an interval is large, and there is one per reading
		firsts[i] = sort.Search(len(steps), func(i int) bool { return steps[i].End.After(iv.start) })
		for k := firsts[i]; k < len(steps) && steps[k].Start.Before(iv.end); k++ {
			counts[k]++
		}
	}
	out := make([][]piece, len(steps))
	for k, n := range counts {
		if n > 0 {
			out[k] = make([]piece, 0, n)
		}
	}
	for i := range ivs {
		iv := &ivs[i]
		first := firsts[i]
		length := iv.end.Sub(iv.start)
		h := heading(iv.dial)
		for k := first; k < len(steps) && steps[k].Start.Before(iv.end); k++ {
			st := &steps[k]
			from, to := iv.start, iv.end
			interpolated := false
			if from.Before(st.Start) {
				if !canInterpolate(st.Start) {
					continue
				}
				from, interpolated = st.Start, true
			}
			if to.After(st.End) {
				if !canInterpolate(st.End) {
					continue
				}
				to, interpolated = st.End, true
			}
			if !to.After(from) {
				continue
			}
			wh, volume := iv.wh, iv.volume
			if interpolated {
				wh = iv.wh * float64(to.Sub(from)) / float64(length)
				volume = iv.volume * float64(to.Sub(from)) / float64(length)
			}
			out[k] = append(out[k], piece{
				start: from, end: to, heading: h, wh: wh, volume: volume,
				estimated: iv.estimated || interpolated, negative: iv.negative, natures: iv.natures,
				source: sourceKey{iv.pod, iv.start.Unix(), iv.end.Unix()},
			})
		}
	}
	return out
}

// spanUnion measures the union of spans added in order of start.
type spanUnion struct {
	total time.Duration
	cur   timeSpan
	any   bool
}

func (u *spanUnion) add(a, b time.Time) {
	switch {
	case !u.any:
		u.cur, u.any = timeSpan{a, b}, true
	case a.After(u.cur.b):
		u.total += u.cur.b.Sub(u.cur.a)
		u.cur = timeSpan{a, b}
	case b.After(u.cur.b):
		u.cur.b = b
	}
}

func (u *spanUnion) length() time.Duration {
	if !u.any {
		return u.total
	}
	return u.total + u.cur.b.Sub(u.cur.a)
}

// timeSpan is [a, b).
type timeSpan struct{ a, b time.Time }

// unionLength is the length of the union of spans, which it sorts by start when they are not.
func unionLength(spans []timeSpan) time.Duration {
	if !slices.IsSortedFunc(spans, func(x, y timeSpan) int { return x.a.Compare(y.a) }) {
		slices.SortFunc(spans, func(x, y timeSpan) int { return x.a.Compare(y.a) })
	}
	var u spanUnion
	for _, s := range spans {
		u.add(s.a, s.b)
	}
	return u.length()
}

// span returns the earliest start and latest end of the pieces (zero times when there are none).
func span(ps []piece) (first, last time.Time) {
	for _, p := range ps {
		if first.IsZero() || p.start.Before(first) {
			first = p.start
		}
		if last.IsZero() || p.end.After(last) {
			last = p.end
		}
	}
	return first, last
}
