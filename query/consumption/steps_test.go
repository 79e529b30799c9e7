package consumption

import (
	"testing"
	"time"
)

func paris(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// local is a wall-clock time in loc (never ambiguous in these tests).
func local(loc *time.Location, y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, loc)
}

func stepDurations(steps []Step) []time.Duration {
	out := make([]time.Duration, len(steps))
	for i, s := range steps {
		out[i] = s.End.Sub(s.Start)
	}
	return out
}

func TestStepsDaysAcrossDST(t *testing.T) {
	p := paris(t)
	cases := []struct {
		name       string
		start, end time.Time
		want       []time.Duration
	}{
		// Sunday 31 March 2024: clocks go from 02:00 CET to 03:00 CEST, the day lasts 23 h.
		{"spring forward", local(p, 2024, 3, 30, 0, 0), local(p, 2024, 4, 2, 0, 0), []time.Duration{24 * time.Hour, 23 * time.Hour, 24 * time.Hour}},
		// Sunday 27 October 2024: clocks go from 03:00 CEST back to 02:00 CET, the day lasts 25 h.
		{"fall back", local(p, 2024, 10, 26, 0, 0), local(p, 2024, 10, 29, 0, 0), []time.Duration{24 * time.Hour, 25 * time.Hour, 24 * time.Hour}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, trunc := Steps(c.start, c.end, p, UnitDays, 1, MaxSteps)
			if trunc {
				t.Fatal("truncated")
			}
			got := stepDurations(steps)
			if len(got) != len(c.want) {
				t.Fatalf("%d steps %v, want %v", len(got), got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("step %d lasts %v, want %v", i, got[i], c.want[i])
				}
				if h, m, _ := steps[i].Start.Clock(); h != 0 || m != 0 {
					t.Errorf("step %d starts at %v, want local midnight", i, steps[i].Start)
				}
				if steps[i].Start.Location() != p {
					t.Errorf("step %d not in the site's zone: %v", i, steps[i].Start.Location())
				}
			}
		})
	}
}

func TestStepsHoursAcrossDST(t *testing.T) {
	p := paris(t)
	// The spring-forward day holds 23 hourly steps, the fall-back day 25, each exactly 1 h.
	for _, c := range []struct {
		day  int
		mo   time.Month
		want int
	}{{31, time.March, 23}, {27, time.October, 25}, {1, time.June, 24}} {
		start := local(p, 2024, c.mo, c.day, 0, 0)
		end := local(p, 2024, c.mo, c.day+1, 0, 0)
		steps, trunc := Steps(start, end, p, UnitHours, 1, MaxSteps)
		if trunc || len(steps) != c.want {
			t.Fatalf("%s %d: %d steps (truncated %v), want %d", c.mo, c.day, len(steps), trunc, c.want)
		}
		for i, s := range steps {
			if d := s.End.Sub(s.Start); d != time.Hour {
				t.Errorf("%s %d step %d lasts %v", c.mo, c.day, i, d)
			}
		}
	}
	// On the fall-back day the local hour 02:00 occurs twice: steps 2 and 3 both show 02:00,
	// with offsets +02:00 then +01:00.
	steps, _ := Steps(local(p, 2024, 10, 27, 0, 0), local(p, 2024, 10, 28, 0, 0), p, UnitHours, 1, MaxSteps)
	if a, b := steps[2].Start.Format(time.RFC3339), steps[3].Start.Format(time.RFC3339); a != "2024-10-27T02:00:00+02:00" || b != "2024-10-27T02:00:00+01:00" {
		t.Errorf("repeated hour: %s then %s", a, b)
	}
}

func TestStepsMonthsFromMonthEnd(t *testing.T) {
	p := paris(t)
	// Boundaries are start + k months, clamped to the month's last day, never drifting:
	// Jan 31 → Feb 29 (2024 is a leap year) → Mar 31 → Apr 30 → May 31; the last step is cut at end.
	steps, trunc := Steps(local(p, 2024, 1, 31, 0, 0), local(p, 2024, 6, 15, 0, 0), p, UnitMonths, 1, MaxSteps)
	want := []string{
		"2024-01-31T00:00:00+01:00", "2024-02-29T00:00:00+01:00", "2024-03-31T00:00:00+01:00",
		"2024-04-30T00:00:00+02:00", "2024-05-31T00:00:00+02:00", "2024-06-15T00:00:00+02:00",
	}
	if trunc || len(steps) != len(want)-1 {
		t.Fatalf("%d steps (truncated %v): %v", len(steps), trunc, steps)
	}
	for i, s := range steps {
		if got := s.Start.Format(time.RFC3339); got != want[i] {
			t.Errorf("step %d starts %s, want %s", i, got, want[i])
		}
		if got := s.End.Format(time.RFC3339); got != want[i+1] {
			t.Errorf("step %d ends %s, want %s", i, got, want[i+1])
		}
	}
	// 2-month steps from Jan 31: Mar 31, May 31.
	steps, _ = Steps(local(p, 2023, 1, 31, 0, 0), local(p, 2023, 7, 1, 0, 0), p, UnitMonths, 2, MaxSteps)
	if len(steps) != 3 || steps[1].Start.Day() != 31 || steps[1].Start.Month() != time.March || steps[2].Start.Month() != time.May || steps[2].Start.Day() != 31 {
		t.Errorf("2-month steps from Jan 31: %v", steps)
	}
	// Years from Feb 29 clamp to Feb 28, and come back to Feb 29 four years later.
	steps, _ = Steps(local(p, 2024, 2, 29, 0, 0), local(p, 2029, 1, 1, 0, 0), p, UnitYears, 1, MaxSteps)
	if len(steps) != 5 || steps[1].Start.Day() != 28 || steps[4].Start.Day() != 29 {
		t.Errorf("yearly steps from Feb 29: %v", steps)
	}
}

func TestStepsStartNotAtMidnight(t *testing.T) {
	p := paris(t)
	// Days run from 06:30 to 06:30 local, including across the spring change (23 h).
	steps, _ := Steps(local(p, 2024, 3, 30, 6, 30), local(p, 2024, 4, 1, 12, 0), p, UnitDays, 1, MaxSteps)
	want := []string{"2024-03-30T06:30:00+01:00", "2024-03-31T06:30:00+02:00", "2024-04-01T06:30:00+02:00", "2024-04-01T12:00:00+02:00"}
	if len(steps) != 3 {
		t.Fatalf("%d steps: %v", len(steps), steps)
	}
	for i, s := range steps {
		if s.Start.Format(time.RFC3339) != want[i] || s.End.Format(time.RFC3339) != want[i+1] {
			t.Errorf("step %d = [%s, %s), want [%s, %s)", i, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), want[i], want[i+1])
		}
	}
	if d := steps[0].End.Sub(steps[0].Start); d != 23*time.Hour {
		t.Errorf("the step over the spring change lasts %v, want 23h", d)
	}
	// A boundary falling in the spring gap (02:30 does not exist on 31 March) moves forward to 03:30.
	steps, _ = Steps(local(p, 2024, 3, 30, 2, 30), local(p, 2024, 4, 1, 0, 0), p, UnitDays, 1, MaxSteps)
	if got := steps[0].End.Format(time.RFC3339); got != "2024-03-31T03:30:00+02:00" {
		t.Errorf("boundary in the gap: %s", got)
	}
	// A boundary on the repeated hour (02:30 on 27 October) takes the first one, summer time.
	steps, _ = Steps(local(p, 2024, 10, 26, 2, 30), local(p, 2024, 10, 28, 0, 0), p, UnitDays, 1, MaxSteps)
	if got := steps[0].End.Format(time.RFC3339); got != "2024-10-27T02:30:00+02:00" {
		t.Errorf("boundary in the overlap: %s", got)
	}
	// 15-minute steps from 10:07 keep their phase; the last is cut at end.
	steps, _ = Steps(local(p, 2024, 5, 1, 10, 7), local(p, 2024, 5, 1, 10, 40), p, UnitMinutes, 15, MaxSteps)
	if d := stepDurations(steps); len(d) != 3 || d[0] != 15*time.Minute || d[2] != 3*time.Minute {
		t.Errorf("minute steps: %v", d)
	}
}

func TestStepsWindowOf1200(t *testing.T) {
	p := paris(t)
	start := local(p, 2024, 1, 1, 0, 0)
	// One leap year of hours is 8,784 steps: only the first 1,200 come back.
	steps, trunc := Steps(start, local(p, 2025, 1, 1, 0, 0), p, UnitHours, 1, MaxSteps)
	if !trunc || len(steps) != MaxSteps {
		t.Fatalf("%d steps, truncated %v; want 1200, true", len(steps), trunc)
	}
	if got, want := steps[MaxSteps-1].End, start.Add(1200*time.Hour); !got.Equal(want) {
		t.Errorf("window ends %v, want %v", got, want)
	}
	// Exactly 1,200 steps is not truncated.
	steps, trunc = Steps(start, start.Add(1200*time.Hour), p, UnitHours, 1, MaxSteps)
	if trunc || len(steps) != MaxSteps {
		t.Errorf("exactly 1200: %d steps, truncated %v", len(steps), trunc)
	}
	// 1,201 is.
	_, trunc = Steps(start, start.Add(1201*time.Hour), p, UnitHours, 1, MaxSteps)
	if !trunc {
		t.Error("1201 steps not truncated")
	}
	// A huge period at MINUTES stops at the window without building the rest.
	steps, trunc = Steps(start, local(p, 2100, 1, 1, 0, 0), p, UnitMinutes, 1, MaxSteps)
	if !trunc || len(steps) != MaxSteps {
		t.Errorf("80 years of minutes: %d steps, truncated %v", len(steps), trunc)
	}
}

func TestStepsEdges(t *testing.T) {
	p := paris(t)
	start, end := local(p, 2024, 1, 1, 0, 0), local(p, 2024, 1, 3, 12, 0)
	if s, trunc := Steps(start, end, p, "", 0, MaxSteps); len(s) != 1 || trunc || !s[0].Start.Equal(start) || !s[0].End.Equal(end) {
		t.Errorf("no unit: %v", s)
	}
	if s, _ := Steps(end, start, p, UnitDays, 1, MaxSteps); len(s) != 0 {
		t.Errorf("inverted period: %v", s)
	}
	if s, _ := Steps(start, end, p, UnitDays, 1, 0); len(s) != 3 {
		t.Errorf("no max: %v", s)
	}
	// Inputs in UTC come back in the site's zone.
	s, _ := Steps(start.UTC(), end.UTC(), p, UnitDays, 1, MaxSteps)
	if s[0].Start.Format(time.RFC3339) != "2024-01-01T00:00:00+01:00" {
		t.Errorf("zone: %v", s[0].Start)
	}
}

func TestFormatStep(t *testing.T) {
	p := paris(t)
	jan1 := local(p, 2024, 1, 1, 0, 0)
	cases := []struct {
		name       string
		start, end time.Time
		unit       string
		value      int
		want       string
	}{
		{"days", jan1, jan1, UnitDays, 1, "P1D"},
		{"2 months", jan1, jan1, UnitMonths, 2, "P2M"},
		{"12 months", jan1, jan1, UnitMonths, 12, "P1Y"},
		{"14 months", jan1, jan1, UnitMonths, 14, "P1Y2M"},
		{"year", jan1, jan1, UnitYears, 1, "P1Y"},
		{"30 minutes", jan1, jan1, UnitMinutes, 30, "PT30M"},
		{"90 minutes", jan1, jan1, UnitMinutes, 90, "PT1H30M"},
		{"60 minutes", jan1, jan1, UnitMinutes, 60, "PT1H"},
		{"hour", jan1, jan1, UnitHours, 1, "PT1H"},
		{"48 hours", jan1, jan1, UnitHours, 48, "PT48H"},
		{"whole year", jan1, local(p, 2025, 1, 1, 0, 0), "", 0, "P1Y"},
		{"whole month", local(p, 2024, 2, 1, 0, 0), local(p, 2024, 3, 1, 0, 0), "", 0, "P1M"},
		{"Jan 31 to Feb 29", local(p, 2024, 1, 31, 0, 0), local(p, 2024, 2, 29, 0, 0), "", 0, "P1M"},
		{"three days", jan1, local(p, 2024, 1, 4, 0, 0), "", 0, "P3D"},
		{"31 days is a month", local(p, 2024, 3, 1, 0, 0), local(p, 2024, 4, 1, 0, 0), "", 0, "P1M"},
		{"15 months", jan1, local(p, 2025, 4, 1, 0, 0), "", 0, "P1Y3M"},
		{"DST day", local(p, 2024, 3, 31, 0, 0), local(p, 2024, 4, 1, 0, 0), "", 0, "P1D"},
		{"half a day", jan1, local(p, 2024, 1, 1, 12, 0), "", 0, "PT12H"},
		{"36 hours", jan1, local(p, 2024, 1, 2, 12, 0), "", 0, "PT36H"},
		{"8h30", jan1, local(p, 2024, 1, 1, 8, 30), "", 0, "PT8H30M"},
		{"seconds", jan1, jan1.Add(90*time.Minute + 5*time.Second), "", 0, "PT1H30M5S"},
		{"days from 06:00", local(p, 2024, 1, 1, 6, 0), local(p, 2024, 1, 3, 6, 0), "", 0, "P2D"},
		{"month and a day is days", jan1, local(p, 2024, 2, 2, 0, 0), "", 0, "P32D"},
		{"month and 1 hour", jan1, local(p, 2024, 2, 1, 1, 0), "", 0, "PT745H"},
	}
	for _, c := range cases {
		if got := FormatStep(c.start, c.end, p, c.unit, c.value); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestWallClock(t *testing.T) {
	p := paris(t)
	for _, c := range []struct {
		y       int
		mo      time.Month
		d, h, m int
		want    string
	}{
		{2024, 3, 31, 2, 30, "2024-03-31T03:30:00+02:00"},  // gap: forward by the gap
		{2024, 10, 27, 2, 30, "2024-10-27T02:30:00+02:00"}, // overlap: the earlier instant
		{2024, 10, 27, 3, 0, "2024-10-27T03:00:00+01:00"},
		{2024, 10, 27, 1, 59, "2024-10-27T01:59:00+02:00"},
		{2024, 7, 14, 12, 0, "2024-07-14T12:00:00+02:00"},
	} {
		if got := WallClock(c.y, c.mo, c.d, c.h, c.m, 0, 0, p).Format(time.RFC3339); got != c.want {
			t.Errorf("%d-%02d-%02d %02d:%02d: %s, want %s", c.y, c.mo, c.d, c.h, c.m, got, c.want)
		}
	}
}
