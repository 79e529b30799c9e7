// Package synth walks the calendar of a synthetic HPHC household, the one shape of generated
// data the benchmarks (bench) and the demo (energyctl demo) share: 30-minute load-curve points
// on local half-hours, each counted on dial 1 (HC, 22:00 to 06:00 local) or dial 2 (HP), whose
// daily indexes at local midnight are the curve's energy so far. Each caller draws its own
// powers: the benchmark's fixed rows, the demo's weather-driven households.
package synth

import "time"

// The HPHC contract of every generated household.
const (
	Timezone = "Europe/Paris"
	Step     = 30 * time.Minute // of the load curve
	StepISO  = "PT30M"          // Step as an archive's load curves state it
	DialHC   = "1"
	DialHP   = "2"
	HCFrom   = 22 // HC runs from 22:00 to 06:00 local time
	HCTo     = 6
	// SlotsPerDay is the number of local half-hours of a day (a DST day has 46 or 50 points).
	SlotsPerDay = 48
)

// Dial is the dial that counts a point starting in local half-hour slot (0 is 00:00-00:30).
func Dial(slot int) string {
	if h := slot / 2; h >= HCFrom || h < HCTo {
		return DialHC
	}
	return DialHP
}

// Wh is the energy of one Step-long point of w watts; an even w makes it a whole number of Wh,
// so that a day's index increase equals its curve energy exactly.
func Wh(w int64) int64 { return w * int64(Step/time.Minute) / 60 }

// Slot is the local half-hour a point begins in.
func Slot(local time.Time) int { return 2*local.Hour() + local.Minute()/30 }

// Walk goes through the local days from from to to (local midnights, in from's location):
// day is called at each local midnight with the next one, then point for each point of that
// day with its begin, in UTC, and its local half-hour slot.
func Walk(from, to time.Time, day func(start, next time.Time), point func(begin time.Time, slot int)) {
	loc := from.Location()
	for start := from; start.Before(to); {
		next := time.Date(start.Year(), start.Month(), start.Day()+1, 0, 0, 0, 0, loc)
		day(start, next)
		dstChange := next.Sub(start) != 24*time.Hour
		k := 0
		for t := start.UTC(); t.Before(next); t, k = t.Add(Step), k+1 {
			slot := k // the k-th point of the day is its k-th half-hour, but on a DST day
			if dstChange {
				slot = Slot(t.In(loc))
			}
			point(t, slot)
		}
		start = next
	}
}
