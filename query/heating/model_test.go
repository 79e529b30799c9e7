package heating

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

var paris, _ = time.LoadLocation("Europe/Paris")

// climate gives each local date from first on a mean temperature that swings between −2 and
// 22 °C over a year, plus a small daily wobble so that no two balance points fit alike.
func climate(first Date, days int) map[Date]float64 {
	m := map[Date]float64{}
	for i := 0; i < days; i++ {
		m[first.AddDays(i)] = 10 - 12*math.Cos(2*math.Pi*float64(i)/365) + 1.5*math.Sin(float64(i)*1.7)
	}
	return m
}

// exactIntervals cuts [start, start + n×every) into intervals whose energy is exactly
// base × days + slope × HDD(tb), both prorated over partial days like the model does.
func exactIntervals(t *testing.T, means map[Date]float64, start time.Time, every time.Duration, n int, base, slope, tb float64) []Interval {
	t.Helper()
	var out []Interval
	for i := 0; i < n; i++ {
		iv := Interval{From: start.Add(time.Duration(i) * every), To: start.Add(time.Duration(i+1) * every)}
		k, ok := keep(iv, means, paris)
		if !ok {
			t.Fatalf("interval %d lacks weather", i)
		}
		iv.KWh = base*k.days + slope*k.hdd(tb)
		out = append(out, iv)
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFitRecoversBaseSlopeAndBalancePoint(t *testing.T) {
	first := Date{2023, 1, 1}
	means := climate(first, 800)
	for _, c := range []struct {
		name             string
		start            time.Time
		every            time.Duration
		n                int
		base, slope, tb  float64
		wantIntervals    int
		wantCoveredDays  float64
		wantFrom, wantTo Date
	}{
		// Daily readings at local midnight for 400 days: the fit period is the last 365 days.
		{"daily at midnight", first.Midnight(paris), 24 * time.Hour, 400, 12.5, 3.2, 16.5, 365, 365, Date{2023, 2, 5}, Date{2024, 2, 4}},
		// Readings at 06:00 UTC every 7 days: partial days at both ends, prorated.
		{"weekly at 06:00", time.Date(2023, 1, 2, 6, 0, 0, 0, time.UTC), 7 * 24 * time.Hour, 60, 4, 7.75, 18, 52, 364, Date{2023, 2, 27}, Date{2024, 2, 26}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Intervals: exactIntervals(t, means, c.start, c.every, c.n, c.base, c.slope, c.tb), DailyMeans: means, Loc: paris}
			f, err := FitModel(in)
			if err != nil {
				t.Fatal(err)
			}
			if f.BalancePoint == nil || !near(*f.BalancePoint, c.tb, 1e-9) || !near(f.Base, c.base, 1e-6) || !near(f.Slope, c.slope, 1e-6) || !near(f.R2, 1, 1e-9) {
				t.Fatalf("fit Tb %v base %v slope %v R² %v, want %v %v %v 1", deref(f.BalancePoint), f.Base, f.Slope, f.R2, c.tb, c.base, c.slope)
			}
			if f.Intervals != c.wantIntervals || !near(f.CoveredDays, c.wantCoveredDays, 1e-9) || f.From != c.wantFrom || f.To != c.wantTo {
				t.Fatalf("period %s..%s, %d intervals, %v days; want %s..%s, %d, %v", f.From, f.To, f.Intervals, f.CoveredDays, c.wantFrom, c.wantTo, c.wantIntervals, c.wantCoveredDays)
			}
			if f.Confidence() != math.Round(math.Min(1, c.wantCoveredDays/365)*math.Min(1, float64(c.wantIntervals)/12)*1000)/1000 {
				t.Fatalf("confidence %v", f.Confidence())
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestInterceptOnlyWhenNoBalancePointQualifies(t *testing.T) {
	first := Date{2023, 1, 1}
	means := climate(first, 400)
	// Energy falls when it gets colder (negative slope at every balance point): 20 − HDD(15).
	ivs := exactIntervals(t, means, first.Midnight(paris), 24*time.Hour, 370, 20, -0.5, 15)
	f, err := FitModel(Input{Intervals: ivs, DailyMeans: means, Loc: paris})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, iv := range ivs[5:] { // the last 365 days
		sum += iv.KWh
	}
	if f.BalancePoint != nil || f.Slope != 0 || f.R2 != 0 || !near(f.Base, sum/365, 1e-9) || f.FitPeriodDegreeDays != nil {
		t.Fatalf("intercept-only: Tb %v base %v (want %v) slope %v R² %v", deref(f.BalancePoint), f.Base, sum/365, f.Slope, f.R2)
	}
	if f.YearlyKWh(2) != f.Base*365 || f.Confidence() != 0 {
		t.Fatalf("yearly %v, confidence %v", f.YearlyKWh(2), f.Confidence())
	}
}

func TestFitPeriodWidensTo730DaysUnderSixIntervals(t *testing.T) {
	first := Date{2022, 1, 1}
	means := climate(first, 800)
	// A reading every 73 days: 5 intervals in the last 365 days, 10 in 730.
	ivs := exactIntervals(t, means, first.Midnight(paris), 73*24*time.Hour, 10, 6, 2.5, 15.5)
	f, err := FitModel(Input{Intervals: ivs, DailyMeans: means, Loc: paris})
	if err != nil {
		t.Fatal(err)
	}
	last := DateOf(ivs[9].To, paris).AddDays(-1)
	if f.To != last || f.From != last.AddDays(-729) || f.Intervals != 10 || !near(f.CoveredDays, 730, 1e-9) {
		t.Fatalf("period %s..%s, %d intervals, %v days", f.From, f.To, f.Intervals, f.CoveredDays)
	}
	if !near(*f.BalancePoint, 15.5, 1e-9) || !near(f.Base, 6, 1e-6) || !near(f.Slope, 2.5, 1e-6) {
		t.Fatalf("widened fit Tb %v base %v slope %v", *f.BalancePoint, f.Base, f.Slope)
	}
}

func TestInsufficientDataCauses(t *testing.T) {
	first := Date{2023, 1, 1}
	means := climate(first, 800)
	midnight := first.Midnight(paris)
	holed := climate(first, 800)
	for i := 0; i < 800; i += 3 {
		delete(holed, first.AddDays(i)) // every third day without weather
	}
	for _, c := range []struct {
		name     string
		in       Input
		mentions []string
	}{
		{"no readings", Input{DailyMeans: means, Loc: paris}, []string{"no pair of consecutive readings"}},
		{"too few intervals", Input{Intervals: exactIntervals(t, means, midnight, 120*24*time.Hour, 3, 5, 2, 16), DailyMeans: means, Loc: paris},
			[]string{"3 reading intervals", "at least 4"}},
		{"too few days", Input{Intervals: exactIntervals(t, means, midnight, 24*time.Hour, 40, 5, 2, 16), DailyMeans: means, Loc: paris},
			[]string{"40.0 covered days", "at least 300"}},
		{"weather missing", Input{Intervals: exactIntervals(t, means, midnight, 24*time.Hour, 400, 5, 2, 16), DailyMeans: holed, Loc: paris},
			[]string{"covered days", "lack a daily mean temperature", "weather"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FitModel(c.in)
			var ie *InsufficientDataError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v, want InsufficientDataError", err)
			}
			for _, m := range c.mentions {
				if !strings.Contains(ie.Reason, m) {
					t.Errorf("%q does not mention %q", ie.Reason, m)
				}
			}
		})
	}
}

func TestPartialAndDSTDaysAreProrated(t *testing.T) {
	means := map[Date]float64{{2024, 3, 30}: 4, {2024, 3, 31}: 8, {2024, 4, 1}: 10, {2024, 10, 27}: 6}
	// 31 March 2024 in Paris lasts 23 hours: local 00:00 to 12:00 is 11 hours of it.
	k, ok := keep(Interval{From: Date{2024, 3, 31}.Midnight(paris), To: time.Date(2024, 3, 31, 12, 0, 0, 0, paris)}, means, paris)
	if !ok || len(k.share) != 1 || !near(k.days, 11.0/23, 1e-12) || !near(k.hdd(18), 10*11.0/23, 1e-12) {
		t.Fatalf("DST morning: %+v", k)
	}
	// The whole 23-hour day is one day; so is the 25-hour 27 October.
	for _, d := range []Date{{2024, 3, 31}, {2024, 10, 27}} {
		if k, ok := keep(Interval{From: d.Midnight(paris), To: d.AddDays(1).Midnight(paris)}, means, paris); !ok || !near(k.days, 1, 1e-12) {
			t.Fatalf("%s: %v days", d, k.days)
		}
	}
	// 30 March 18:00 to 1 April 06:00: a quarter of 30 March, all of 31 March, a quarter of 1 April.
	k, ok = keep(Interval{From: time.Date(2024, 3, 30, 18, 0, 0, 0, paris), To: time.Date(2024, 4, 1, 6, 0, 0, 0, paris)}, means, paris)
	if !ok || !near(k.days, 1.5, 1e-12) || !near(k.hdd(18), 0.25*14+10+0.25*8, 1e-12) {
		t.Fatalf("partial days: %v days, HDD %v", k.days, k.hdd(18))
	}
	if _, ok := keep(Interval{From: time.Date(2024, 4, 1, 6, 0, 0, 0, paris), To: time.Date(2024, 4, 2, 6, 0, 0, 0, paris)}, means, paris); ok {
		t.Fatal("an interval over a day without weather was kept")
	}
}

func TestNormalYearAndSetpointShift(t *testing.T) {
	means := map[Date]float64{}
	add := func(year, days int, mean float64) {
		for i := 0; i < days; i++ {
			means[Date{year, 1, 1}.AddDays(i)] = mean
		}
	}
	add(2020, 366, 10) // complete, leap year
	add(2021, 350, 8)  // 350/365 ≥ 95 %: complete, 15 days filled with the year's mean
	add(2022, 300, 0)  // 300/365 < 95 %: not a normal year
	add(2023, 365, 12)
	add(2024, 200, 12) // the year the fit period ends in: not complete by then
	add(2025, 365, 30) // complete, but after the fit period: never a normal year
	// Readings from 11 January 2023 every 30 days: the fit period ends on 5 January 2024.
	ivs := exactIntervals(t, means, Date{2023, 1, 11}.Midnight(paris), 30*24*time.Hour, 12, 3, 2, 17)
	f, err := FitModel(Input{Intervals: ivs, DailyMeans: means, Loc: paris})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.NormalYears) != 3 || f.NormalYears[0] != 2020 || f.NormalYears[2] != 2023 {
		t.Fatalf("normal years %v", f.NormalYears)
	}
	// At 16 °C: 2020 6×366, 2021 8×350×365/350 = 8×365, 2023 4×365.
	if got, want := f.NormalDegreeDays(16), (6*366+8*365+4*365)/3.0; !near(got, want, 1e-9) {
		t.Fatalf("NDD(16) %v, want %v", got, want)
	}
	// Constant 12 °C over the fit period: any Tb above 12 fits (x is constant: no slope can be
	// told from the base), so the model is intercept-only and the budget does not move.
	if f.BalancePoint != nil {
		t.Fatalf("constant weather fitted Tb %v", *f.BalancePoint)
	}
	f.BalancePoint, f.Base, f.Slope = ptr(17.0), 3, 2
	// Yearly energy with the balance point 1 °C higher: 3×365 + 2×NDD(18).
	if got, want := f.YearlyKWh(1), 3*365+2*(8*366+10*365+6*365)/3.0; !near(got, want, 1e-9) {
		t.Fatalf("yearly +1 °C %v, want %v", got, want)
	}
	if got, want := f.HeatingKWh(), 2*(7*366+9*365+5*365)/3.0; !near(got, want, 1e-9) {
		t.Fatalf("heating part %v, want %v", got, want)
	}
	// Without a normal year, the fit period's degree days are scaled to 365 days.
	f.normal = nil
	if got, want := f.NormalDegreeDays(16), f.periodDegreeDays(16)*365/f.CoveredDays; !near(got, want, 1e-9) || !near(got, 4*365, 1e-9) {
		t.Fatalf("NDD without normal year %v, want %v", got, want)
	}
}

func ptr(v float64) *float64 { return &v }

// The fit period ends at the site's last reading, not at the last interval of known energy,
// and a year counts as normal once its last day is in the fit period.
func TestFitPeriodEndsAtTheLastReading(t *testing.T) {
	first := Date{2023, 1, 1}
	means := climate(first, 800)
	// Daily intervals from 1 January 2023 to 5 February 2024 (400 days); the last reading is
	// 8 February 2024 at 08:00 (its interval's energy is unknown, so it is not an interval).
	ivs := exactIntervals(t, means, first.Midnight(paris), 24*time.Hour, 400, 12.5, 3.2, 16.5)
	last := time.Date(2024, 2, 8, 8, 0, 0, 0, paris)
	f, err := FitModel(Input{Intervals: ivs, DailyMeans: means, Loc: paris, Last: last})
	if err != nil {
		t.Fatal(err)
	}
	// 8 February 2024 is the last day; 365 days back is 9 February 2023: the daily intervals of
	// 9 February 2023 to 4 February 2024 lie inside, 361 of them.
	if f.To != (Date{2024, 2, 8}) || f.From != (Date{2023, 2, 9}) || f.Intervals != 361 || !near(f.CoveredDays, 361, 1e-9) {
		t.Fatalf("period %s..%s, %d intervals, %v days; want 2023-02-09..2024-02-08, 361, 361", f.From, f.To, f.Intervals, f.CoveredDays)
	}
	if !near(*f.BalancePoint, 16.5, 1e-9) || !near(f.Base, 12.5, 1e-6) || !near(f.Slope, 3.2, 1e-6) {
		t.Fatalf("fit Tb %v base %v slope %v", deref(f.BalancePoint), f.Base, f.Slope)
	}
	if !slices.Equal(f.NormalYears, []int{2023}) {
		t.Fatalf("normal years %v, want [2023]", f.NormalYears)
	}
	for _, c := range []struct {
		end  Date
		want []int
	}{{Date{2023, 12, 30}, nil}, {Date{2023, 12, 31}, []int{2023}}} {
		var got []int
		for _, y := range normalYears(means, c.end) {
			got = append(got, y.year)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("normal years of a fit ending %s: %v, want %v", c.end, got, c.want)
		}
	}
}
