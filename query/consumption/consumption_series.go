package consumption

import (
	"math"
	"slices"
	"sort"
	"time"
)

// indexInterval is the consumption of one dial between two consecutive usable readings.
type indexInterval struct {
	pod, dial  string
	start, end time.Time
	wh         float64 // energy: (later index − earlier index) × the later reading's Wh per index unit; 0 when the index went down; else NaN when that factor is unknown
	volume     float64 // later index − earlier index, in unit; 0 when the index went down
	unit       string  // the later reading's index unit (gas)
	estimated  bool    // an end is an MKT_ESTIMATION reading
	negative   bool    // the index went down without a meter change (counted 0)
	natures    natureSet
}

// natureSet is a set of nature families (bit i = natureFamilies[i]).
type natureSet uint8

func (s natureSet) names() []string {
	out := []string{}
	for i, f := range natureFamilies {
		if s&(1<<i) != 0 {
			out = append(out, f.nature)
		}
	}
	sort.Strings(out)
	return out
}

// indexPoint is what a series knows at one instant: the index that closes the interval before
// it and the index that opens the interval after it. They differ at a meter change (the old
// meter's last index, then the new meter's first).
type indexPoint struct {
	ts                    time.Time
	hasClose, hasOpen     bool
	closeValue, openValue int64
	closeEst, openEst     bool
	closeFam, openFam     int
	closeFactor           float64
	closeUnit             string
}

// usableReadings applies the index strategy to the MKT_ESTIMATION readings of one series
// (sorted by ts): NO_ESTIMATED drops them; ALL_ESTIMATED keeps them; SURROUNDING_ESTIMATED keeps
// only those completing the beginning or the end of the period [start, end], where real ones are
// missing: outside the period, or before its first (after its last) real reading; all of them
// when the period holds no real reading. Real readings are always kept.
func usableReadings(rs []reading, strategy string, start, end time.Time) []reading {
	if strategy == StrategyAllEstimated {
		return rs
	}
	var firstReal, lastReal time.Time
	if strategy != StrategyNoEstimated {
		for _, r := range rs {
			if r.estimated() || r.ts.Before(start) || r.ts.After(end) {
				continue
			}
			if firstReal.IsZero() {
				firstReal = r.ts
			}
			lastReal = r.ts
		}
	}
	drop := func(r reading) bool {
		return r.estimated() && (strategy == StrategyNoEstimated || !firstReal.IsZero() && !r.ts.Before(firstReal) && !r.ts.After(lastReal))
	}
	if !slices.ContainsFunc(rs, drop) {
		return rs // the common case: a copy of a year of readings per series saved
	}
	out := make([]reading, 0, len(rs))
	for _, r := range rs {
		if !drop(r) {
			out = append(out, r)
		}
	}
	return out
}

// seriesPoints folds one series' readings (sorted by ts, the old meter's index first) into
// points, appended to pts[:0] (the previous series' points, whose array is reused).
// A lone old-meter index (indexBeforeChange without the new meter's first index) closes the
// interval before it and opens none: the new meter's start is unknown until its next reading.
func seriesPoints(pts []indexPoint, rs []reading) []indexPoint {
	pts = slices.Grow(pts[:0], len(rs))
	for _, r := range rs {
		if n := len(pts); n > 0 && pts[n-1].ts.Equal(r.ts) {
			p := &pts[n-1]
			if !r.beforeChange { // the new meter's first index after the old one's last
				p.hasOpen, p.openValue, p.openEst, p.openFam = true, r.value, r.estimated(), r.priority
			}
			continue
		}
		p := indexPoint{ts: r.ts, hasClose: true, closeValue: r.value, closeEst: r.estimated(), closeFam: r.priority, closeFactor: r.factor, closeUnit: r.unit}
		if !r.beforeChange {
			p.hasOpen, p.openValue, p.openEst, p.openFam = true, r.value, r.estimated(), r.priority
		}
		pts = append(pts, p)
	}
	return pts
}

// appendSeriesIntervals appends to out the intervals between consecutive points of one series.
func appendSeriesIntervals(out []indexInterval, pod, dial string, pts []indexPoint) []indexInterval {
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		if !a.hasOpen || !b.hasClose {
			continue
		}
		iv := indexInterval{
			pod: pod, dial: dial, start: a.ts, end: b.ts, unit: b.closeUnit,
			estimated: a.openEst || b.closeEst,
			natures:   natureSet(1<<a.openFam | 1<<b.closeFam),
		}
		if d := b.closeValue - a.openValue; d >= 0 {
			iv.volume = float64(d)
			iv.wh = iv.volume * b.closeFactor
		} else {
			iv.negative = true
		}
		out = append(out, iv)
	}
	return out
}

// indexSeries holds what the engine derives from the resolved readings of a site.
type indexSeries struct {
	intervals    []indexInterval // by series, then time; energy known
	meterChanges []time.Time     // instants where a meter was replaced, sorted
	unconverted  []timeSpan      // intervals whose energy is unknown (a gas reading without kWh factor closes them), by start
}

// buildIndexSeries cuts the resolved readings (sorted by pod, dial, ts) into series, applies the
// strategy for the period [start, end] and returns their intervals and meter changes.
func buildIndexSeries(rs []reading, strategy string, start, end time.Time) indexSeries {
	out := indexSeries{intervals: make([]indexInterval, 0, len(rs))} // at most one interval per reading
	changes := map[int64]time.Time{}
	var pts []indexPoint // one series' points at a time: their intervals are all that is kept
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j].pod == rs[i].pod && rs[j].dial == rs[i].dial {
			if rs[j].beforeChange {
				changes[rs[j].ts.Unix()] = rs[j].ts
			}
			j++
		}
		series := usableReadings(rs[i:j], strategy, start, end)
		n := len(out.intervals)
		pts = seriesPoints(pts, series)
		all := appendSeriesIntervals(out.intervals, rs[i].pod, rs[i].dial, pts)
		// The series' intervals of known energy, filtered in place: moved only behind one left
		// out (an interval is large, and a copy onto itself costs as much as any).
		kept := n
		for k := n; k < len(all); k++ {
			if iv := &all[k]; math.IsNaN(iv.wh) {
				out.unconverted = append(out.unconverted, timeSpan{iv.start, iv.end})
				continue
			}
			if kept != k {
				all[kept] = all[k]
			}
			kept++
		}
		out.intervals = all[:kept]
		i = j
	}
	sort.Slice(out.unconverted, func(i, j int) bool { return out.unconverted[i].a.Before(out.unconverted[j].a) })
	for _, t := range changes {
		out.meterChanges = append(out.meterChanges, t)
	}
	sort.Slice(out.meterChanges, func(i, j int) bool { return out.meterChanges[i].Before(out.meterChanges[j]) })
	return out
}
