package bench

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := durations(5, 1, 4, 2, 3, 10, 9, 8, 7, 6)
	for p, want := range map[float64]float64{50: 5, 90: 9, 99: 10, 100: 10, 1: 1} {
		if got := Percentile(ds, p); got != time.Duration(want*float64(time.Millisecond)) {
			t.Errorf("p%v = %v, want %v ms", p, got, want)
		}
	}
	if Percentile[time.Duration](nil, 99) != 0 {
		t.Error("empty: want 0")
	}
	// The server's counters (system.query_log's milliseconds and rows) rank alike.
	if got := Percentile([]uint64{9, 1, 4, 4, 7, 2, 8, 3, 6, 5}, 50); got != 4 {
		t.Errorf("p50 of 1..9 with 4 twice (the 5th of 10): %d, want 4", got)
	}
}

func durations(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return out
}
