// Package heating fits a site's heating energy to the weather (a degree-day regression with a
// searched balance point, as PRISM and the CalTRACK methods do) and prices set-point changes
// with it: the budget matrix and the heating budget.
package heating

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Interval is the energy of the heating fluid between two consecutive resolved readings.
type Interval struct {
	From, To time.Time
	KWh      float64
}

// Date is a local calendar date of the site.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the local date of t in loc.
func DateOf(t time.Time, loc *time.Location) Date {
	y, m, d := t.In(loc).Date()
	return Date{y, m, d}
}

// Midnight is the first instant of the date in loc.
func (d Date) Midnight(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// AddDays is the date n days later.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC), time.UTC)
}

func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// Observations of the model: the fit, the candidate balance points, the sufficiency rules.
const (
	fitDays         = 365
	widenedFitDays  = 730
	widenBelow      = 6 // kept intervals in the fit period under which it is widened
	minIntervals    = 4
	minCoveredDays  = 300
	minBalancePoint = 10.0
	maxBalancePoint = 22.0
	balancePointGap = 0.5
	completeYear    = 0.95 // share of a year's days with a daily mean for a normal year
	maxNormalYears  = 10
)

// Input is what the fit needs: the heating fluid's intervals, the station's daily mean
// temperatures by local date, the site's zone and its last resolved reading of the fluid, on
// which the fit period ends (zero: the end of the last interval). Nothing depends on the
// request's date: a site whose readings stopped years ago is fitted on its last year of them.
type Input struct {
	Intervals  []Interval
	DailyMeans map[Date]float64
	Loc        *time.Location
	Last       time.Time
}

// InsufficientDataError says why the model cannot be fitted.
type InsufficientDataError struct{ Reason string }

func (e *InsufficientDataError) Error() string { return e.Reason }

func insufficient(format string, args ...any) error {
	return &InsufficientDataError{Reason: fmt.Sprintf(format, args...)}
}

// dayShare is the part of one local day that an interval covers, with that day's mean.
type dayShare struct {
	share float64 // fraction of the day (0..1]
	mean  float64 // °C
}

// keptInterval is an interval whose every day has a daily mean.
type keptInterval struct {
	days  float64 // n: days covered, fractional at partial days
	kwh   float64
	share []dayShare
}

func (k keptInterval) hdd(tb float64) float64 {
	var s float64
	for _, d := range k.share {
		s += d.share * math.Max(0, tb-d.mean)
	}
	return s
}

// Fit is the fitted model: energy per day = Base + Slope × heating degree days at BalancePoint.
type Fit struct {
	BalancePoint *float64 // °C; nil for the intercept-only model
	Base         float64  // kWh per day
	Slope        float64  // kWh per degree day
	R2           float64
	From, To     Date // fit period, To inclusive
	CoveredDays  float64
	Intervals    int
	// FitPeriodDegreeDays is the degree days of the kept intervals at the balance point (nil
	// without one).
	FitPeriodDegreeDays *float64
	NormalYears         []int

	kept   []keptInterval
	normal []normalYear
}

type normalYear struct {
	year  int
	days  int       // days in the year
	means []float64 // daily means of its covered days
}

// FitModel fits the model to in; an *InsufficientDataError says what is short.
func FitModel(in Input) (*Fit, error) {
	if len(in.Intervals) == 0 {
		return nil, insufficient("the heating fluid has no pair of consecutive readings")
	}
	last := in.Last
	for _, iv := range in.Intervals {
		if iv.To.After(last) {
			last = iv.To
		}
	}
	end := FitEnd(last, in.Loc)
	f := &Fit{To: end}
	all, withoutWeather := 0, 0
	choose := func(days int) {
		f.From = end.AddDays(1 - days)
		start := f.From.Midnight(in.Loc)
		f.kept, f.CoveredDays, all, withoutWeather = nil, 0, 0, 0
		for _, iv := range in.Intervals {
			if iv.From.Before(start) || iv.To.After(last) || !iv.To.After(iv.From) {
				continue
			}
			all++
			k, ok := keep(iv, in.DailyMeans, in.Loc)
			if !ok {
				withoutWeather++
				continue
			}
			f.kept = append(f.kept, k)
			f.CoveredDays += k.days
		}
	}
	choose(fitDays)
	if len(f.kept) < widenBelow {
		choose(widenedFitDays)
	}
	f.Intervals = len(f.kept)
	if f.Intervals < minIntervals || f.CoveredDays < minCoveredDays {
		var why []string
		if f.Intervals < minIntervals {
			why = append(why, fmt.Sprintf("%d reading intervals where at least %d are needed", f.Intervals, minIntervals))
		}
		if f.CoveredDays < minCoveredDays {
			why = append(why, fmt.Sprintf("%.1f covered days where at least %d are needed", f.CoveredDays, minCoveredDays))
		}
		msg := fmt.Sprintf("the heating model needs more data: from %s to %s the heating fluid has %s", f.From, f.To, joinAnd(why))
		if withoutWeather > 0 {
			msg += fmt.Sprintf("; %d of its %d intervals lack a daily mean temperature on some day (weather missing at the site's station)", withoutWeather, all)
		}
		return nil, insufficient("%s", msg)
	}
	f.fit()
	f.normal = normalYears(in.DailyMeans, f.To)
	for _, y := range f.normal {
		f.NormalYears = append(f.NormalYears, y.year)
	}
	if f.BalancePoint != nil {
		dd := f.periodDegreeDays(*f.BalancePoint)
		f.FitPeriodDegreeDays = &dd
	}
	return f, nil
}

// FitEnd is the last day of the fit period of readings that end at last: its local date,
// or the day before when last is a local midnight (that day has no energy read yet).
func FitEnd(last time.Time, loc *time.Location) Date {
	end := DateOf(last, loc)
	if last.Equal(end.Midnight(loc)) {
		end = end.AddDays(-1)
	}
	return end
}

// FitStart is the first day of the widest fit period ending on end (730 days): the earliest
// day whose readings a fit may use.
func FitStart(end Date) Date { return end.AddDays(1 - widenedFitDays) }

// LastNormalYear is the latest calendar year that may be a normal year of a fit period ending
// on end: the last one complete by then.
func LastNormalYear(end Date) int {
	if end.Month == time.December && end.Day == 31 {
		return end.Year
	}
	return end.Year - 1
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[0] + " and " + parts[1]
}

// keep splits an interval into its local days, prorating partial days by their length (23 or
// 25 hours on DST days); it refuses an interval with a day that has no daily mean.
func keep(iv Interval, means map[Date]float64, loc *time.Location) (keptInterval, bool) {
	k := keptInterval{kwh: iv.KWh}
	for d := DateOf(iv.From, loc); ; d = d.AddDays(1) {
		a, b := d.Midnight(loc), d.AddDays(1).Midnight(loc)
		if !a.Before(iv.To) {
			break
		}
		lo, hi := iv.From, iv.To
		if a.After(lo) {
			lo = a
		}
		if b.Before(hi) {
			hi = b
		}
		if !hi.After(lo) {
			continue
		}
		mean, ok := means[d]
		if !ok {
			return keptInterval{}, false
		}
		share := float64(hi.Sub(lo)) / float64(b.Sub(a))
		k.share = append(k.share, dayShare{share: share, mean: mean})
		k.days += share
	}
	return k, k.days > 0
}

// fit searches the balance point: weighted least squares of kWh/day on degree days/day with
// weights the interval lengths, for Tb = 10.0, 10.5, … 22.0; the best weighted R² among the
// fits with slope > 0 and base ≥ 0 wins, else the intercept-only model.
func (f *Fit) fit() {
	best := -math.MaxFloat64
	for i := 0; ; i++ {
		tb := minBalancePoint + float64(i)*balancePointGap
		if tb > maxBalancePoint+1e-9 {
			break
		}
		base, slope, r2, ok := f.regress(tb)
		if ok && slope > 0 && base >= 0 && r2 > best {
			best = r2
			t := tb
			f.BalancePoint, f.Base, f.Slope, f.R2 = &t, base, slope, r2
		}
	}
	if f.BalancePoint == nil {
		var sw, swy float64
		for _, k := range f.kept {
			sw += k.days
			swy += k.kwh
		}
		f.Base, f.Slope, f.R2 = swy/sw, 0, 0
	}
}

// regress is the weighted least squares fit at one balance point.
func (f *Fit) regress(tb float64) (base, slope, r2 float64, ok bool) {
	var sw, sx, sy float64
	xs := make([]float64, len(f.kept))
	for i, k := range f.kept {
		x, y := k.hdd(tb)/k.days, k.kwh/k.days
		xs[i] = x
		sw += k.days
		sx += k.days * x
		sy += k.days * y
	}
	mx, my := sx/sw, sy/sw
	var sxx, sxy, syy float64
	for i, k := range f.kept {
		dx, dy := xs[i]-mx, k.kwh/k.days-my
		sxx += k.days * dx * dx
		sxy += k.days * dx * dy
		syy += k.days * dy * dy
	}
	if sxx <= 0 {
		return 0, 0, 0, false
	}
	slope = sxy / sxx
	base = my - slope*mx
	if syy <= 0 {
		return base, slope, 1, true
	}
	var ssr float64
	for i, k := range f.kept {
		r := k.kwh/k.days - (base + slope*xs[i])
		ssr += k.days * r * r
	}
	return base, slope, 1 - ssr/syy, true
}

// periodDegreeDays is the degree days of the kept intervals at tb.
func (f *Fit) periodDegreeDays(tb float64) float64 {
	var s float64
	for _, k := range f.kept {
		s += k.hdd(tb)
	}
	return s
}

// normalYears picks the station's complete calendar years (at least 95 % of days with a daily
// mean) that ended by the fit period's last day, the 10 most recent.
func normalYears(means map[Date]float64, end Date) []normalYear {
	byYear := map[int][]float64{}
	for d, m := range means {
		if d.Year <= LastNormalYear(end) {
			byYear[d.Year] = append(byYear[d.Year], m)
		}
	}
	var out []normalYear
	for y, ms := range byYear {
		days := 365
		if time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366 {
			days = 366
		}
		if float64(len(ms)) >= completeYear*float64(days) {
			out = append(out, normalYear{year: y, days: days, means: ms})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].year > out[j].year })
	if len(out) > maxNormalYears {
		out = out[:maxNormalYears]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].year < out[j].year })
	return out
}

// NormalDegreeDays is the degree days of a normal year at tb: the mean over the normal years of
// each year's degree days, its days without data counted at the mean of its covered days; with
// no normal year, the fit period's degree days scaled to 365 days.
func (f *Fit) NormalDegreeDays(tb float64) float64 {
	if len(f.normal) == 0 {
		return f.periodDegreeDays(tb) * fitDays / f.CoveredDays
	}
	var sum float64
	for _, y := range f.normal {
		var s float64
		for _, m := range y.means {
			s += math.Max(0, tb-m)
		}
		sum += s * float64(y.days) / float64(len(y.means))
	}
	return sum / float64(len(f.normal))
}

// YearlyKWh is the energy of a normal year with the balance point shifted by shift °C (the
// change of the schedule's mean set point).
func (f *Fit) YearlyKWh(shift float64) float64 {
	e := f.Base * fitDays
	if f.BalancePoint != nil {
		e += f.Slope * f.NormalDegreeDays(*f.BalancePoint+shift)
	}
	return e
}

// HeatingKWh is the weather-dependent part of a normal year (slope × normal degree days): the
// heating itself, without the base load.
func (f *Fit) HeatingKWh() float64 { return f.YearlyKWh(0) - f.Base*fitDays }

// Confidence is max(0, R²) × min(1, covered days / 365) × min(1, intervals / 12), to 3 decimals.
func (f *Fit) Confidence() float64 {
	c := math.Max(0, f.R2) * math.Min(1, f.CoveredDays/fitDays) * math.Min(1, float64(f.Intervals)/12)
	return math.Round(c*1000) / 1000
}
