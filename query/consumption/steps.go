package consumption

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Step units of the consumption endpoint.
const (
	UnitYears   = "YEARS"
	UnitMonths  = "MONTHS"
	UnitDays    = "DAYS"
	UnitHours   = "HOURS"
	UnitMinutes = "MINUTES"
)

// MaxSteps is the most consumptions one answer holds (the 1,200 window).
const MaxSteps = 1200

// Step is one interval [Start, End) of a consumption answer, both in the site's zone.
type Step struct{ Start, End time.Time }

// Steps cuts [start,end) on the site's calendar: DAYS/MONTHS/YEARS by calendar arithmetic on local
// wall-clock time from start (boundaries start + k×step in local time; a DST day is 23 or 25 h),
// HOURS/MINUTES fixed durations; the last step cut at end; at most max steps (truncated=true when
// more were needed). unit "" = one step covering the period.
//
// Boundaries are computed from start for each k (never step after step), so a month step from
// Jan 31 gives Feb 29, Mar 31, Apr 30: a day past the end of a month clamps to its last day. An
// unknown unit counts as "", value < 1 as 1, max < 1 as no limit. An empty or inverted period
// has no steps.
func Steps(start, end time.Time, loc *time.Location, unit string, value, max int) (steps []Step, truncated bool) {
	if loc == nil {
		loc = time.UTC
	}
	start, end = start.In(loc), end.In(loc)
	if !end.After(start) {
		return nil, false
	}
	if value < 1 {
		value = 1
	}
	if !knownUnit(unit) {
		return []Step{{start, end}}, false
	}
	steps = make([]Step, 0, stepsCapacity(start, end, unit, value, max))
	from := start
	for k := 1; ; k++ {
		if max > 0 && len(steps) == max {
			return steps, true
		}
		to := AddSteps(start, loc, unit, k*value)
		if !to.After(from) { // cannot happen with sane zones; never loop forever
			to = end
		}
		if !to.Before(end) {
			return append(steps, Step{from, end}), false
		}
		steps = append(steps, Step{from, to})
		from = to
	}
}

// stepsCapacity is at least the number of steps of [start, end) (capped at max when set): the
// period over the shortest a step can last, so that the slice is allocated once (a 1,200-step
// answer grown by append allocates about twice its size again).
func stepsCapacity(start, end time.Time, unit string, value, max int) int {
	shortest := 365 * 24 * time.Hour // UnitYears
	switch unit {
	case UnitMinutes:
		shortest = time.Minute
	case UnitHours:
		shortest = time.Hour
	case UnitDays:
		shortest = 23 * time.Hour // a day that springs forward
	case UnitMonths:
		shortest = 28*24*time.Hour - time.Hour
	}
	n := int(end.Sub(start)/(shortest*time.Duration(value))) + 2
	if max < 1 {
		max = 4096 // no limit: beyond, append grows it
	}
	return min(n, max)
}

func knownUnit(unit string) bool {
	switch unit {
	case UnitYears, UnitMonths, UnitDays, UnitHours, UnitMinutes:
		return true
	}
	return false
}

// AddSteps returns t + n units in loc: calendar arithmetic on the wall clock for DAYS, MONTHS and
// YEARS (clamped to the month's last day, see WallClock for DST gaps and overlaps), fixed durations
// for HOURS and MINUTES. An unknown unit returns t.
func AddSteps(t time.Time, loc *time.Location, unit string, n int) time.Time {
	t = t.In(loc)
	switch unit {
	case UnitMinutes:
		return t.Add(time.Duration(n) * time.Minute)
	case UnitHours:
		return t.Add(time.Duration(n) * time.Hour)
	case UnitDays:
		return WallClock(t.Year(), t.Month(), t.Day()+n, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	case UnitMonths:
		return addMonths(t, loc, n)
	case UnitYears:
		return addMonths(t, loc, 12*n)
	}
	return t
}

func addMonths(t time.Time, loc *time.Location, n int) time.Time {
	first := time.Date(t.Year(), t.Month()+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	day := min(t.Day(), daysIn(first.Year(), first.Month()))
	return WallClock(first.Year(), first.Month(), day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
}

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// WallClock is the instant showing the given local time in loc (fields are normalised like
// time.Date). A time skipped by a DST change (02:30 on a spring-forward day in Paris) moves
// forward by the gap (03:30); a time that occurs twice (02:30 on a fall-back day) is the earlier
// instant, with the summer offset, as java.time and most calendars do.
func WallClock(y int, mo time.Month, d, h, mi, s, ns int, loc *time.Location) time.Time {
	t := time.Date(y, mo, d, h, mi, s, ns, loc)
	// Go picks the later instant of an overlap: look for the same wall clock under the offset
	// in force before the current zone period began.
	zoneStart, _ := t.ZoneBounds()
	if zoneStart.IsZero() {
		return t
	}
	_, off := t.Zone()
	_, before := zoneStart.Add(-time.Nanosecond).Zone()
	if before <= off {
		return t
	}
	earlier := t.Add(-time.Duration(before-off) * time.Second)
	if earlier.Before(zoneStart) && sameWallClock(earlier, t) {
		return earlier
	}
	return t
}

func sameWallClock(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() &&
		a.Second() == b.Second() && a.Nanosecond() == b.Nanosecond()
}

// FormatStep writes the step as ISO 8601 (the step rules of apidocs/README.md, "Consumption"): P1D, P2M, P1Y, PT30M, PT1H;
// zero parts omitted; without unit, calendar units when the period is a whole number of them
// (P3D, P1M, P1Y) else PTnHnMnS.
//
// Calendar units use the largest exact unit: MONTHS 12 is P1Y, MONTHS 14 P1Y2M, MINUTES 90
// PT1H30M. HOURS stay hours (PT48H): a fixed duration is not a calendar day.
func FormatStep(start, end time.Time, loc *time.Location, unit string, value int) string {
	if loc == nil {
		loc = time.UTC
	}
	if value < 1 {
		value = 1
	}
	switch unit {
	case UnitYears:
		return calendarDuration(value*12, 0)
	case UnitMonths:
		return calendarDuration(value, 0)
	case UnitDays:
		return calendarDuration(0, value)
	case UnitHours:
		return clockDuration(time.Duration(value) * time.Hour)
	case UnitMinutes:
		return clockDuration(time.Duration(value) * time.Minute)
	}
	start, end = start.In(loc), end.In(loc)
	if !end.After(start) {
		return "PT0S"
	}
	if n := monthsBetween(start, end); n > 0 && addMonths(start, loc, n).Equal(end) {
		return calendarDuration(n, 0)
	}
	if n := daysBetween(start, end); n > 0 && AddSteps(start, loc, UnitDays, n).Equal(end) {
		return calendarDuration(0, n)
	}
	return clockDuration(end.Sub(start))
}

// monthsBetween is the whole months from start to end by calendar date (may overcount by one).
func monthsBetween(start, end time.Time) int {
	n := (end.Year()-start.Year())*12 + int(end.Month()-start.Month())
	if n > 0 && addMonths(start, start.Location(), n).After(end) {
		n--
	}
	return n
}

func daysBetween(start, end time.Time) int {
	sy, sm, sd := start.Date()
	ey, em, ed := end.Date()
	return int(time.Date(ey, em, ed, 0, 0, 0, 0, time.UTC).Sub(time.Date(sy, sm, sd, 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
}

func calendarDuration(months, days int) string {
	var b strings.Builder
	b.WriteByte('P')
	if y := months / 12; y > 0 {
		fmt.Fprintf(&b, "%dY", y)
	}
	if m := months % 12; m > 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if days > 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	return b.String()
}

func clockDuration(d time.Duration) string {
	if d <= 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteString("PT")
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dH", h)
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dM", m)
		d -= m * time.Minute
	}
	if d > 0 {
		b.WriteString(strconv.FormatFloat(d.Seconds(), 'f', -1, 64))
		b.WriteByte('S')
	}
	return b.String()
}
