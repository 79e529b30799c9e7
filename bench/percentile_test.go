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
	if Percentile(nil, 99) != 0 {
		t.Error("empty: want 0")
	}
}

func durations(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return out
}
