package main

import (
	"testing"
	"time"

	"energy/bench"
)

// The server's milliseconds and the client's durations of the read floor are ranked alike.
func TestQuantileUIsNearestRankAsPercentile(t *testing.T) {
	vs := []uint64{9, 1, 4, 4, 7, 2, 8, 3, 6, 5}
	ds := make([]time.Duration, len(vs))
	for i, v := range vs {
		ds[i] = time.Duration(v)
	}
	for _, p := range []float64{1, 10, 50, 55, 90, 99, 100} {
		if got, want := quantileU(vs, p), uint64(bench.Percentile(ds, p)); got != want {
			t.Errorf("p%v: %d, want %d", p, got, want)
		}
	}
	if got := quantileU(vs, 50); got != 4 {
		t.Errorf("p50 of 1..9 with 4 twice (the 5th of 10): %d, want 4", got)
	}
	if quantileU(nil, 50) != 0 {
		t.Error("p50 of nothing is not 0")
	}
}
