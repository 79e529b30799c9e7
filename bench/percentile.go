package bench

import (
	"slices"
	"time"
)

// Percentile is the nearest-rank p-th percentile of ds (0 when ds is empty): the smallest
// duration that at least p % of ds do not exceed.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}
