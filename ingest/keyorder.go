package ingest

import (
	"cmp"
	"slices"
	"strings"
)

// ClickHouse sorts each block it inserts by the table's ORDER BY key unless the block is
// already in that order, and that sort is about a third of the server's time for a large
// archive. Archives hold one series after another (a pod's days, each day's points in
// order): their rows are a few runs already in key order, cheap to put in order here.

// minRowsPerRun bounds the runs worth ordering: rows in runs shorter than this on average are
// sent as they come (the server sorts them).
var minRowsPerRun = 64

// keyOrder returns the rows of one table across the files as runs to send in turn: in the
// table's key order (compare) when the rows are runs in that order that do not interleave, in
// file order otherwise.
func keyOrder[T any](files []Rows, rowsOf func(*Rows) []T, compare func(a, b *T) int) [][]T {
	var runs [][]T
	n := 0
	for f := range files {
		rows := rowsOf(&files[f])
		n += len(rows)
		start := 0
		for i := 1; i <= len(rows); i++ {
			if i == len(rows) || compare(&rows[i-1], &rows[i]) > 0 {
				runs = append(runs, rows[start:i])
				start = i
			}
		}
	}
	if len(runs) < 2 || len(runs) > n/minRowsPerRun {
		return runs
	}
	ordered := slices.Clone(runs)
	slices.SortStableFunc(ordered, func(a, b []T) int { return compare(&a[0], &b[0]) })
	for i := 1; i < len(ordered); i++ {
		if compare(&ordered[i-1][len(ordered[i-1])-1], &ordered[i][0]) > 0 {
			return runs // interleaved series
		}
	}
	return ordered
}

// The tables' sort keys (schema/migrations/0002_readings.sql) after tenant_id, the same for
// every row of a job.

func elecKey(a, b *ElecIndexRow) int {
	return cmp.Or(compareIDs(a.SiteID, b.SiteID, a.PodID, b.PodID), a.TS.Compare(b.TS),
		compareBool(a.IndexBeforeChange, b.IndexBeforeChange), compareString(a.Nature, b.Nature),
		a.GenerationTS.Compare(b.GenerationTS), compareString(a.Dial, b.Dial))
}

func gasKey(a, b *GasIndexRow) int {
	return cmp.Or(compareIDs(a.SiteID, b.SiteID, a.PodID, b.PodID), a.TS.Compare(b.TS),
		compareBool(a.IndexBeforeChange, b.IndexBeforeChange), compareString(a.Nature, b.Nature),
		a.GenerationTS.Compare(b.GenerationTS))
}

func maxPowerKey(a, b *MaxPowerRow) int {
	return cmp.Or(compareIDs(a.SiteID, b.SiteID, a.PodID, b.PodID), a.TS.Compare(b.TS),
		a.GenerationTS.Compare(b.GenerationTS))
}

func pointKey(a, b *LoadCurvePointRow) int {
	return cmp.Or(compareIDs(a.SiteID, b.SiteID, a.PodID, b.PodID), a.BeginTS.Compare(b.BeginTS),
		a.EndTS.Compare(b.EndTS), a.GenerationTS.Compare(b.GenerationTS))
}

func compareIDs(siteA, siteB, podA, podB string) int {
	return cmp.Or(compareString(siteA, siteB), compareString(podA, podB))
}

// compareString is strings.Compare with a shortcut for the interned ids, mostly equal.
func compareString(a, b string) int {
	if a == b {
		return 0
	}
	return strings.Compare(a, b)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
