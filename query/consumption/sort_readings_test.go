package consumption

import (
	"slices"
	"testing"
	"time"
)

// Readings in resolveRecords' order (pod, ts, the new meter's index first at a meter change,
// dial) come out of regroupByDial alone in sortReadings' order (pod, dial, ts, the old meter's
// index first): the linear path, not the fallback sort, orders them.
func TestRegroupByDialOrdersResolvedReadings(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	r := func(pod, dial string, d int, before bool, v int64) reading {
		return reading{pod: pod, dial: dial, ts: at(d), beforeChange: before, value: v}
	}
	resolved := []reading{
		r("A", "2", 0, false, 20), r("A", "HP", 0, false, 30), r("A", "1", 0, false, 10),
		r("A", "1", 1, false, 1), r("A", "2", 1, false, 2), r("A", "1", 1, true, 11), r("A", "2", 1, true, 21),
		r("A", "1", 2, false, 5), r("A", "2", 2, false, 6),
		r("B", "1", 0, false, 100), r("B", "1", 1, false, 110),
	}
	want := slices.Clone(resolved)
	slices.SortFunc(want, compareReadings)
	got := slices.Clone(resolved)
	regroupByDial(got)
	if !slices.Equal(got, want) {
		t.Errorf("regrouped:\n%v\nwant\n%v", got, want)
	}
	if want[1].value != 11 || want[2].value != 1 { // dial 1 at day 1: the old meter's 11, then the new one's 1
		t.Errorf("the meter change is not in the old meter's order: %v", want[:4])
	}
	got = slices.Clone(resolved)
	sortReadings(got)
	if !slices.Equal(got, want) {
		t.Errorf("sortReadings:\n%v\nwant\n%v", got, want)
	}
}
