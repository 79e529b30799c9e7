// Package comparison compares a site's electricity of one year with the year before over the
// same months, on the consumption engine, and names the weather's part in the difference from
// the stations' heating degree days; its answers are cached by the site's data version.
package comparison

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema/registry"
)

// Limits of the years of a comparison request.
const (
	MaxComparisonYears  = 10
	FirstComparisonYear = 2000
)

// WeatherImpactThreshold is the difference of heating degree days (percent) from which the
// comparison names the weather's impact.
const WeatherImpactThreshold = 5.0

// Weather impact codes.
const (
	ColderWeatherHigherConso = "COLDER_WEATHER_HIGHER_CONSO"
	ColderWeatherLowerConso  = "COLDER_WEATHER_LOWER_CONSO"
	WarmerWeatherLowerConso  = "WARMER_WEATHER_LOWER_CONSO"
	WarmerWeatherHigherConso = "WARMER_WEATHER_HIGHER_CONSO"
)

// YearComparison compares the electricity of year N with N−1 over the same months.
type YearComparison struct {
	CurrentYear              ComparedYear             `json:"currentYear"`
	PreviousYear             ComparedYear             `json:"previousYear"`
	EnergyDifferenceRate     *float64                 `json:"energyDifferenceRate" nullable:"true" doc:"(N − (N−1)) / (N−1) × 100, rounded to 2 decimals; null when N−1's energy is 0 or missing (or N's is missing)" example:"-4.12"`
	CostDifferenceRate       *float64                 `json:"costDifferenceRate" nullable:"true" doc:"Same for the cost (standing charge included); null when a cost is 0 or missing" example:"3.5"`
	WeatherImpactMessageCode string                   `json:"weatherImpactMessageCode,omitempty" enum:"COLDER_WEATHER_HIGHER_CONSO,COLDER_WEATHER_LOWER_CONSO,WARMER_WEATHER_LOWER_CONSO,WARMER_WEATHER_HIGHER_CONSO" doc:"Present only when the heating degree days of the two periods differ by 5 % or more, every day of both periods has weather data, and both energies are known and differ. Colder = more degree days; higher/lower compares N's energy with N−1's."`
	WeatherImpactParameters  *WeatherImpactParameters `json:"weatherImpactParameters,omitempty" doc:"Values for the message text; present exactly when weatherImpactMessageCode is"`
}

// ComparedYear is one side of a comparison: months beginMonth..endMonth of year.
type ComparedYear struct {
	Year        string              `json:"year" example:"2024"`
	BeginMonth  string              `json:"beginMonth" example:"01"`
	EndMonth    string              `json:"endMonth" example:"12"`
	FromDate    string              `json:"fromDate" doc:"First local day, yyyy-MM-dd" example:"2024-01-01"`
	ToDate      string              `json:"toDate" doc:"Last local day (included), yyyy-MM-dd" example:"2024-12-31"`
	Consumption ComparedConsumption `json:"consumption"`
}

// ComparedConsumption is the consumption endpoint's answer for the whole period as one step.
type ComparedConsumption struct {
	Energy                  *float64           `json:"energy" nullable:"true" doc:"Wh; null when the period has no usable data" example:"3512000"`
	Cost                    *float64           `json:"cost" nullable:"true" doc:"EUR, energy plus standing charge; null without a tariff or without data" example:"812.4"`
	EnergiesByTariffHeading map[string]float64 `json:"energiesByTariffHeading" doc:"Wh by tariff heading"`
	CostsByTariffHeading    map[string]float64 `json:"costsByTariffHeading" doc:"EUR by tariff heading, energy cost only (no standing charge)"`
}

// WeatherImpactParameters are the figures of the weather message: base-18 °C heating degree
// days of each period (rounded to 2 decimals) and their difference in percent.
type WeatherImpactParameters struct {
	DegreeDaysCurrentYear    float64 `json:"degreeDaysCurrentYear" example:"2536.4"`
	DegreeDaysPreviousYear   float64 `json:"degreeDaysPreviousYear" example:"2107.15"`
	DegreeDaysDifferenceRate float64 `json:"degreeDaysDifferenceRate" doc:"(N − (N−1)) / (N−1) × 100, rounded to 2 decimals" example:"20.37"`
}

// YearsError is a bad value of the years parameter.
type YearsError struct {
	Value   string
	Message string
}

func (e *YearsError) Error() string { return fmt.Sprintf("%q %s", e.Value, e.Message) }

var yearPattern = regexp.MustCompile(`^[0-9]{4}$`)

// ParseYears reads the years of a comparison: each raw value holds one or more
// comma-separated years yyyy, at most 10 in all, no repeats, from 2000 to the current year of
// loc at now, and a current year must have a complete month (January is not over: nothing to
// compare yet). Errors are *YearsError.
func ParseYears(raw []string, now time.Time, loc *time.Location) ([]int, error) {
	var years []int
	seen := map[int]bool{}
	for _, r := range raw {
		for _, v := range strings.Split(r, ",") {
			v = strings.TrimSpace(v)
			if !yearPattern.MatchString(v) {
				return nil, &YearsError{v, "is not a year in the format yyyy"}
			}
			y, _ := strconv.Atoi(v)
			if seen[y] {
				return nil, &YearsError{v, "is given twice"}
			}
			seen[y] = true
			if _, err := comparedMonths(y, now, loc); err != nil {
				return nil, err
			}
			years = append(years, y)
		}
	}
	if len(years) == 0 {
		return nil, &YearsError{"", "is required: one or more years yyyy separated by commas"}
	}
	if len(years) > MaxComparisonYears {
		return nil, &YearsError{strings.Join(raw, ","), fmt.Sprintf("holds %d years; at most %d", len(years), MaxComparisonYears)}
	}
	return years, nil
}

// comparedMonths is the last month compared for year at now: 12 for a past year, the last
// complete month of the ongoing one.
func comparedMonths(year int, now time.Time, loc *time.Location) (int, error) {
	local := now.In(loc)
	v := strconv.Itoa(year)
	switch {
	case year < FirstComparisonYear:
		return 0, &YearsError{v, fmt.Sprintf("is before %d", FirstComparisonYear)}
	case year > local.Year():
		return 0, &YearsError{v, fmt.Sprintf("is in the future (today is %s at the site)", local.Format(time.DateOnly))}
	case year < local.Year():
		return 12, nil
	case local.Month() == time.January:
		return 0, &YearsError{v, fmt.Sprintf("has no complete month yet (today is %s at the site); the comparison starts once January is over", local.Format(time.DateOnly))}
	}
	return int(local.Month()) - 1, nil
}

// Consumptions computes several consumption answers of one site together; *consumption.Engine
// reads the data once for all of them.
type Consumptions interface {
	ComputeAll(ctx context.Context, site registry.Site, reqs []consumption.Request) ([]*consumption.ConsumptionResult, error)
}

// DailyMeans reads a station's daily mean temperatures over the local days of a span, keyed
// by yyyymmdd; *weather.Store reads them, *weather.CachedMeans keeps them between requests.
type DailyMeans interface {
	DailyMeans(ctx context.Context, tenantID, stationID string, loc *time.Location, from, to time.Time) (map[uint32]float64, error)
}

// Engine compares a site's yearly electricity with the previous year, taking energy and
// cost from the consumption engine (so both endpoints agree) and the weather from the site's
// station.
type Engine struct {
	engine  Consumptions
	weather DailyMeans
}

// NewEngine returns the comparison over the consumption engine and the stations' daily means.
func NewEngine(engine Consumptions, weather DailyMeans) *Engine {
	return &Engine{engine: engine, weather: weather}
}

// comparedPeriod is months 1..endMonth of a year in the site's zone.
type comparedPeriod struct {
	year, endMonth int
	start, end     time.Time // local midnights; end excluded
}

func newComparedPeriod(year, endMonth int, loc *time.Location) comparedPeriod {
	return comparedPeriod{year: year, endMonth: endMonth,
		start: time.Date(year, time.January, 1, 0, 0, 0, 0, loc),
		end:   time.Date(year, time.Month(endMonth)+1, 1, 0, 0, 0, 0, loc)}
}

// Compare returns one comparison per year, in the order given; years come from
// ParseYears with the same now. Each distinct period (a year can be N of one item and N−1 of
// another) is computed once, all of them from one read of the site's readings, while the
// station's daily means over the span of the periods are read concurrently.
func (c *Engine) Compare(ctx context.Context, site registry.Site, years []int, now time.Time) ([]YearComparison, error) {
	loc := site.Location()
	type pair struct{ cur, prev comparedPeriod }
	pairs := make([]pair, len(years))
	var periods []comparedPeriod
	index := map[comparedPeriod]int{}
	for i, y := range years {
		endMonth, err := comparedMonths(y, now, loc)
		if err != nil {
			return nil, err
		}
		pairs[i] = pair{newComparedPeriod(y, endMonth, loc), newComparedPeriod(y-1, endMonth, loc)}
		for _, p := range []comparedPeriod{pairs[i].cur, pairs[i].prev} {
			if _, ok := index[p]; !ok {
				index[p] = len(periods)
				periods = append(periods, p)
			}
		}
	}
	var (
		results []*consumption.ConsumptionResult
		means   map[uint32]float64
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		reqs := make([]consumption.Request, len(periods))
		for i, p := range periods {
			// As GET .../consumptions?startTs=<from>&endTs=<to + 1 day> with its defaults would.
			reqs[i] = consumption.Request{Start: p.start, End: p.end, StepValue: 1, IndexStrategy: consumption.StrategySurroundingEstimated}
		}
		results, err = c.engine.ComputeAll(gctx, site, reqs)
		return err
	})
	if site.WeatherStationID != "" {
		g.Go(func() (err error) {
			from, to := periods[0].start, periods[0].end
			for _, p := range periods[1:] {
				if p.start.Before(from) {
					from = p.start
				}
				if p.end.After(to) {
					to = p.end
				}
			}
			means, err = c.weather.DailyMeans(gctx, site.TenantID, site.WeatherStationID, loc, from, to)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]YearComparison, len(pairs))
	for i, pr := range pairs {
		cur, prev := comparedConsumption(results[index[pr.cur]]), comparedConsumption(results[index[pr.prev]])
		item := YearComparison{CurrentYear: comparedYear(pr.cur), PreviousYear: comparedYear(pr.prev)}
		item.CurrentYear.Consumption, item.PreviousYear.Consumption = cur, prev
		item.EnergyDifferenceRate = differenceRate(cur.Energy, prev.Energy)
		item.CostDifferenceRate = differenceRate(cur.Cost, prev.Cost)
		if site.WeatherStationID != "" {
			setWeatherImpact(&item, weather.SumDegreeDays(means, loc, pr.cur.start, pr.cur.end), weather.SumDegreeDays(means, loc, pr.prev.start, pr.prev.end))
		}
		out[i] = item
	}
	return out, nil
}

// comparedConsumption takes the period's single step of a consumption answer.
func comparedConsumption(res *consumption.ConsumptionResult) ComparedConsumption {
	cc := ComparedConsumption{EnergiesByTariffHeading: map[string]float64{}, CostsByTariffHeading: map[string]float64{}}
	if res == nil || len(res.Consumptions) == 0 {
		return cc
	}
	step := res.Consumptions[0]
	cc.Energy = step.EnergyMeter.Total
	if cc.Energy != nil {
		for h, wh := range step.EnergyMeter.ByTariffHeading {
			cc.EnergiesByTariffHeading[h] = wh
		}
	}
	if step.Cost != nil {
		total := step.Cost.Total
		cc.Cost = &total
		for h, eur := range step.Cost.ByTariffHeading {
			cc.CostsByTariffHeading[h] = eur
		}
	}
	return cc
}

// setWeatherImpact sets the code and parameters when both periods have weather for every
// day, their degree days differ by at least 5 % and both energies are known and differ.
func setWeatherImpact(item *YearComparison, ddCur, ddPrev weather.DegreeDays) {
	curE, prevE := item.CurrentYear.Consumption.Energy, item.PreviousYear.Consumption.Energy
	if curE == nil || prevE == nil || *curE == *prevE || !ddCur.Complete() || !ddPrev.Complete() {
		return
	}
	a, b := comparisonRound2(ddCur.Total), comparisonRound2(ddPrev.Total)
	rate := differenceRate(&a, &b)
	if rate == nil || math.Abs(*rate) < WeatherImpactThreshold {
		return
	}
	colder, higher := *rate > 0, *curE > *prevE
	switch {
	case colder && higher:
		item.WeatherImpactMessageCode = ColderWeatherHigherConso
	case colder:
		item.WeatherImpactMessageCode = ColderWeatherLowerConso
	case higher:
		item.WeatherImpactMessageCode = WarmerWeatherHigherConso
	default:
		item.WeatherImpactMessageCode = WarmerWeatherLowerConso
	}
	item.WeatherImpactParameters = &WeatherImpactParameters{DegreeDaysCurrentYear: a, DegreeDaysPreviousYear: b, DegreeDaysDifferenceRate: *rate}
}

func comparedYear(p comparedPeriod) ComparedYear {
	return ComparedYear{
		Year:       strconv.Itoa(p.year),
		BeginMonth: "01",
		EndMonth:   fmt.Sprintf("%02d", p.endMonth),
		FromDate:   p.start.Format(time.DateOnly),
		ToDate:     p.end.AddDate(0, 0, -1).Format(time.DateOnly),
	}
}

// differenceRate is (cur − prev) / prev × 100 rounded to 2 decimals; nil when either is
// missing or prev is 0.
func differenceRate(cur, prev *float64) *float64 {
	if cur == nil || prev == nil || *prev == 0 {
		return nil
	}
	r := comparisonRound2((*cur - *prev) / *prev * 100)
	return &r
}

func comparisonRound2(v float64) float64 { return math.Round(v*100) / 100 }
