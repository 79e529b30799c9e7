package consumption

import "time"

// completeWithLoadCurve applies loadCurveCompletion to index-based pieces of the steps (sorted,
// contiguous): the parts of the period [start, end) before the first and after the last real
// index data (not estimated) are taken from the load curve where it has points there; the rest
// stays index-based. Where the load curve has no point in such a part, the index-based pieces
// (estimated ones) stay as they are.
func completeWithLoadCurve(idx [][]piece, steps []Step, points []loadCurvePoint, tou *timeOfUse, start, end time.Time) [][]piece {
	var realFirst, realLast time.Time
	for _, ps := range idx {
		for _, p := range ps {
			if p.estimated {
				continue
			}
			if realFirst.IsZero() || p.start.Before(realFirst) {
				realFirst = p.start
			}
			if realLast.IsZero() || p.end.After(realLast) {
				realLast = p.end
			}
		}
	}
	if realFirst.IsZero() { // no real index data: the whole period is uncovered start
		realFirst, realLast = end, end
	}
	lc := loadCurvePieces(points, steps, tou)
	out := idx
	for _, region := range []Step{{start, realFirst}, {realLast, end}} {
		if !region.End.After(region.Start) {
			continue
		}
		var fill [][]piece = make([][]piece, len(steps))
		found := false
		for k := range steps {
			for _, p := range lc[k] {
				if q, ok := clipPiece(p, region.Start, region.End); ok {
					fill[k] = append(fill[k], q)
					found = true
				}
			}
		}
		if !found {
			continue
		}
		for k := range steps {
			kept := out[k][:0:0]
			for _, p := range out[k] {
				if q, ok := clipPiece(p, steps[k].Start, region.Start); ok {
					kept = append(kept, q)
				}
				if q, ok := clipPiece(p, region.End, steps[k].End); ok {
					kept = append(kept, q)
				}
			}
			out[k] = append(kept, fill[k]...)
		}
	}
	return out
}

// clipPiece returns the part of p inside [from, to), its energy prorated by time.
func clipPiece(p piece, from, to time.Time) (piece, bool) {
	a, b := maxTime(p.start, from), minTime(p.end, to)
	if !b.After(a) {
		return piece{}, false
	}
	if a.Equal(p.start) && b.Equal(p.end) {
		return p, true
	}
	q := p
	q.start, q.end = a, b
	if !p.loadCurve { // a load-curve piece's energy follows from its span (wattSeconds)
		q.wh = p.wh * float64(b.Sub(a)) / float64(p.end.Sub(p.start))
	}
	q.estimated = p.estimated || !p.loadCurve // a cut index is an interpolated one
	return q, true
}
