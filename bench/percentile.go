package bench

import (
	"cmp"
	"slices"
)

// Percentile is the nearest-rank p-th percentile of ds (0 when ds is empty): the smallest
// value that at least p % of ds do not exceed. Durations and the server's counters alike.
func Percentile[T cmp.Ordered](ds []T, p float64) T {
	if len(ds) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}
