package synth

import (
	"testing"
	"time"
)

// Walk's days and points over a year of Paris: 365 local midnights, 48 points a day but 46 on
// the spring DST day and 50 on the autumn one, each on its local half-hour, and the dials
// splitting a constant 1,000 W into 8 HC hours and 16 HP hours a day (the DST hours fall in HC).
func TestWalkAYearOfParis(t *testing.T) {
	loc, err := time.LoadLocation(Timezone)
	if err != nil {
		t.Fatal(err)
	}
	days, perDay := 0, map[time.Time]int{}
	wh := map[string]int64{}
	var last time.Time
	Walk(time.Date(2025, 1, 1, 0, 0, 0, 0, loc), time.Date(2026, 1, 1, 0, 0, 0, 0, loc),
		func(start, next time.Time) {
			if start.Hour() != 0 || start.Minute() != 0 || !next.After(start) {
				t.Fatalf("day %s to %s", start, next)
			}
			days++
			last = start
		},
		func(begin time.Time, slot int) {
			if begin.Location() != time.UTC || Slot(begin.In(loc)) != slot {
				t.Fatalf("point %s: slot %d, location %s", begin, slot, begin.Location())
			}
			perDay[last]++
			wh[Dial(slot)] += Wh(1000)
		})
	if days != 365 {
		t.Fatalf("%d days, want 365", days)
	}
	for d, n := range perDay {
		want := 48
		switch d.Format(time.DateOnly) {
		case "2025-03-30":
			want = 46
		case "2025-10-26":
			want = 50
		}
		if n != want {
			t.Errorf("%s: %d points, want %d", d.Format(time.DateOnly), n, want)
		}
	}
	if wh[DialHC] != 365*8*1000 || wh[DialHP] != 365*16*1000 {
		t.Errorf("HC %d Wh, HP %d Wh; want %d and %d", wh[DialHC], wh[DialHP], 365*8*1000, 365*16*1000)
	}
}
