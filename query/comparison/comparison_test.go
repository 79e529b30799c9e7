package comparison

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// The comparison fixture, worked out by hand.
//
// Weather, one observation a day at local noon, so a day's mean is that value:
//
//	year  °C    DD/day  days  DD total
//	2020  10.1  7.9     366   2891.4
//	2021  10    8       365   2920
//	2022  8     10      365   3650
//	2023  10.2  7.8     365   2847
//	2024  9     9       366   3294
//
// Station ST2 has 2021 (but not 25 December) and 2022 with the same values.
//
// Electricity, a smart index at local midnight on the 1st of every month (dial 1 = BASE), so
// no boundary is interpolated; kWh per month:
//
//	site  tariff  2020  2021  2022  2023  2024  station
//	A     T1      100   110   120   90    90    ST
//	B     T1      -     100   80    110   100   ST
//	C     NOSC    -     0     50    -     -     ST
//	E     T1      100   110   120   -     -     ST2
//
// T1: 0.20 EUR/kWh and 146 EUR/year of standing charge (a whole year carries 146 EUR, leap or
// not); NOSC: 0.20 EUR/kWh, no standing charge.
const (
	cmpPrice    = 0.20
	cmpStanding = 146.0
)

var cmpTemperatures = map[int]float64{2020: 10.1, 2021: 10, 2022: 8, 2023: 10.2, 2024: 9}

type cmpFixture struct {
	ctx    context.Context
	db     *schema.DB
	reg    *registry.Store
	cmp    *Engine
	engine *consumption.Engine
	sites  map[string]registry.Site
	loc    *time.Location
}

func newCmpFixture(t *testing.T) *cmpFixture {
	t.Helper()
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	loc, _ := time.LoadLocation("Europe/Paris")
	engine := consumption.NewEngine(db, reg, 0.052)
	f := &cmpFixture{ctx: ctx, db: db, reg: reg, loc: loc, sites: map[string]registry.Site{},
		engine: engine, cmp: NewEngine(engine, weather.NewStore(db))}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []string{"ST", "ST2"} {
		must(reg.PutStation(ctx, registry.Station{TenantID: "acme", StationID: st, Name: st, Latitude: 48.7, Longitude: 2.4}))
	}
	must(reg.PutTariff(ctx, registry.Tariff{TenantID: "acme", TariffID: "T1", Option: registry.OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices:          []registry.PricePeriod{{ValidFrom: "2019-01-01", ByHeading: map[string]float64{"BASE": cmpPrice}}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2019-01-01", Yearly: map[string]float64{"subscription": cmpStanding}}}}))
	must(reg.PutTariff(ctx, registry.Tariff{TenantID: "acme", TariffID: "NOSC", Option: registry.OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices: []registry.PricePeriod{{ValidFrom: "2019-01-01", ByHeading: map[string]float64{"BASE": cmpPrice}}}}))

	w := weather.NewStore(db)
	var obs, obs2 []weather.Observation
	for d := time.Date(2020, 1, 1, 12, 0, 0, 0, loc); d.Year() <= 2024; d = d.AddDate(0, 0, 1) {
		o := weather.Observation{Date: d.UTC(), Temperature: cmpTemperatures[d.Year()], Cloudiness: 4}
		obs = append(obs, o)
		if (d.Year() == 2021 || d.Year() == 2022) && !(d.Month() == time.December && d.Day() == 25 && d.Year() == 2021) {
			obs2 = append(obs2, o)
		}
	}
	must(w.Put(ctx, "acme", "ST", obs))
	must(w.Put(ctx, "acme", "ST2", obs2))

	var series []cmpSeries
	for _, s := range []struct {
		id, tariff, station string
		cmpSeries
	}{
		{"A", "T1", "ST", cmpSeries{"A", 2020, []float64{100, 110, 120, 90, 90}}},
		{"B", "T1", "ST", cmpSeries{"B", 2021, []float64{100, 80, 110, 100}}},
		{"C", "NOSC", "ST", cmpSeries{"C", 2021, []float64{0, 50}}},
		{"E", "T1", "ST2", cmpSeries{"E", 2020, []float64{100, 110, 120}}},
	} {
		site := registry.Site{TenantID: "acme", SiteID: s.id, TariffID: s.tariff, WeatherStationID: s.station}
		must(reg.PutSite(ctx, site))
		site.Normalize()
		f.sites[s.id] = site
		series = append(series, s.cmpSeries)
	}
	// One insert for all sites: each insert writes one part per month, the slow part here.
	must(cmpMonthlyIndexes(ctx, db, loc, series))
	return f
}

// cmpSeries is a site's readings: on the 1st of every month from January of first to the
// January after the last year, rising by monthlyKWh[year-first] each month of that year.
type cmpSeries struct {
	siteID     string
	first      int
	monthlyKWh []float64
}

func cmpMonthlyIndexes(ctx context.Context, db *schema.DB, loc *time.Location, series []cmpSeries) error {
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		return err
	}
	gen := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range series {
		value := int64(1_000_000)
		last := time.Date(s.first+len(s.monthlyKWh), 1, 1, 0, 0, 0, 0, loc)
		for m := time.Date(s.first, 1, 1, 0, 0, 0, 0, loc); !m.After(last); m = m.AddDate(0, 1, 0) {
			if err := b.Append("acme", s.siteID, "POD-"+s.siteID, m.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", gen, "1", value, "test"); err != nil {
				return err
			}
			if m.Before(last) {
				value += int64(s.monthlyKWh[m.Year()-s.first] * 1000)
			}
		}
	}
	return b.Send()
}

// compare runs the comparison of one site and year at now.
func (f *cmpFixture) compare(t *testing.T, siteID string, year int, now time.Time) YearComparison {
	t.Helper()
	items, err := f.cmp.Compare(f.ctx, f.sites[siteID], []int{year}, now)
	if err != nil || len(items) != 1 {
		t.Fatalf("%s %d: %v (%d items)", siteID, year, err, len(items))
	}
	return items[0]
}

func cmpNear(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func cmpWant(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 0.005 {
		t.Errorf("%s = %v, want %v", what, cmpDeref(got), want)
	}
}

func cmpWantNull(t *testing.T, what string, got *float64) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %v, want null", what, *got)
	}
}

func cmpDeref(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// TestComparison shares one fixture between its parts: writing it is most of the time.
func TestComparison(t *testing.T) {
	f := newCmpFixture(t)
	t.Run("WeatherCodesAndRates", f.testWeatherCodesAndRates)
	t.Run("UndefinedRates", f.testUndefinedRates)
	t.Run("OngoingYearMonthForMonth", f.testOngoingYearMonthForMonth)
	t.Run("EqualsTheEngineYearlyTotal", f.testEqualsTheEngineYearlyTotal)
	// Last: it changes station ST2's weather.
	t.Run("CachedMeansAnswerAsTheStore", f.testCachedMeansAnswerAsTheStore)
}

// testCachedMeansAnswerAsTheStore: with the stations' daily means cached, answers are the bytes
// of answers read from the store, and a weather change made as the PUT handler makes it is in
// the next answer.
func (f *cmpFixture) testCachedMeansAnswerAsTheStore(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, f.loc)
	cached := NewEngine(f.engine, weather.NewCachedMeans(weather.NewStore(f.db), f.reg.Versions))
	answer := func(e *Engine, site string, years ...int) string {
		t.Helper()
		items, err := e.Compare(f.ctx, f.sites[site], years, now)
		if err != nil {
			t.Fatal(err)
		}
		b, err := encodeJSON(items)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		site  string
		years []int
	}{{"A", []int{2021, 2022, 2023, 2024}}, {"B", []int{2022, 2023}}, {"C", []int{2022}}, {"E", []int{2022}}, {"A", []int{2022}}} {
		want := answer(f.cmp, c.site, c.years...)
		for _, pass := range []string{"first", "second"} {
			if got := answer(cached, c.site, c.years...); got != want {
				t.Errorf("%s %v, %s cached read:\n%s\nwant\n%s", c.site, c.years, pass, got, want)
			}
		}
	}

	// E 2022 had no weather impact: ST2 misses 25 December 2021. Given that day (10 °C, 8 DD),
	// 2021 has every day: DD 3650 vs 2920, +25 %, and 1,440 vs 1,320 kWh: colder and higher.
	if got := f.compare(t, "E", 2022, now); got.WeatherImpactMessageCode != "" {
		t.Fatalf("E 2022 before the change: %q", got.WeatherImpactMessageCode)
	}
	if err := weather.NewStore(f.db).Put(f.ctx, "acme", "ST2", []weather.Observation{{Date: time.Date(2021, 12, 25, 12, 0, 0, 0, f.loc), Temperature: 10, Cloudiness: 4}}); err != nil {
		t.Fatal(err)
	}
	f.reg.Versions.Bump("acme", "")
	items, err := cached.Compare(f.ctx, f.sites["E"], []int{2022}, now)
	if err != nil {
		t.Fatal(err)
	}
	if p := items[0].WeatherImpactParameters; items[0].WeatherImpactMessageCode != ColderWeatherHigherConso || p == nil ||
		!cmpNear(p.DegreeDaysCurrentYear, 3650) || !cmpNear(p.DegreeDaysPreviousYear, 2920) || !cmpNear(p.DegreeDaysDifferenceRate, 25) {
		t.Errorf("E 2022 after ST2's 25 December: %q %+v, want COLDER_WEATHER_HIGHER_CONSO 3650 / 2920 / 25", items[0].WeatherImpactMessageCode, p)
	}
	if got, want := answer(cached, "E", 2022), answer(f.cmp, "E", 2022); got != want {
		t.Errorf("E 2022 after the change, cached read:\n%s\nwant\n%s", got, want)
	}
}

func (f *cmpFixture) testWeatherCodesAndRates(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, f.loc) // every compared year is over

	cases := []struct {
		site             string
		year             int
		energy, prevE    float64 // Wh
		cost, prevC      float64 // EUR
		energyRate       float64
		costRate         float64
		code             string
		ddCur, ddPrev    float64
		ddRate           float64
		heading, prevHdg float64 // EUR of energy by heading
	}{
		// A 2021/2020: 1,320 vs 1,200 kWh → +10.00 %; 264 + 146 = 410 vs 240 + 146 = 386 EUR →
		// 24 / 386 = +6.22 %; DD 2920 vs 2891.4 → +0.99 % < 5 %: no code.
		{site: "A", year: 2021, energy: 1_320_000, prevE: 1_200_000, cost: 410, prevC: 386, energyRate: 10, costRate: 6.22, heading: 264, prevHdg: 240},
		// A 2022/2021: 1,440 vs 1,320 kWh → 120 / 1,320 = +9.09 %; 434 vs 410 EUR → +5.85 %;
		// DD 3650 vs 2920 → +25.00 %: colder and higher.
		{site: "A", year: 2022, energy: 1_440_000, prevE: 1_320_000, cost: 434, prevC: 410, energyRate: 9.09, costRate: 5.85,
			code: ColderWeatherHigherConso, ddCur: 3650, ddPrev: 2920, ddRate: 25, heading: 288, prevHdg: 264},
		// A 2023/2022: 1,080 vs 1,440 kWh → −25.00 %; 362 vs 434 EUR → −72 / 434 = −16.59 %;
		// DD 2847 vs 3650 → −803 / 3650 = −22.00 %: warmer and lower.
		{site: "A", year: 2023, energy: 1_080_000, prevE: 1_440_000, cost: 362, prevC: 434, energyRate: -25, costRate: -16.59,
			code: WarmerWeatherLowerConso, ddCur: 2847, ddPrev: 3650, ddRate: -22, heading: 216, prevHdg: 288},
		// A 2024/2023: 1,080 vs 1,080 kWh → 0.00 %, 362 vs 362 EUR → 0.00 %; DD +15.70 % but the
		// energy is equal (neither higher nor lower): no code.
		{site: "A", year: 2024, energy: 1_080_000, prevE: 1_080_000, cost: 362, prevC: 362, energyRate: 0, costRate: 0, heading: 216, prevHdg: 216},
		// B 2022/2021: 960 vs 1,200 kWh → −20.00 %; 192 + 146 = 338 vs 386 EUR → −48 / 386 =
		// −12.44 %; DD +25.00 %: colder and lower.
		{site: "B", year: 2022, energy: 960_000, prevE: 1_200_000, cost: 338, prevC: 386, energyRate: -20, costRate: -12.44,
			code: ColderWeatherLowerConso, ddCur: 3650, ddPrev: 2920, ddRate: 25, heading: 192, prevHdg: 240},
		// B 2023/2022: 1,320 vs 960 kWh → +37.50 %; 410 vs 338 EUR → 72 / 338 = +21.30 %;
		// DD −22.00 %: warmer and higher.
		{site: "B", year: 2023, energy: 1_320_000, prevE: 960_000, cost: 410, prevC: 338, energyRate: 37.5, costRate: 21.30,
			code: WarmerWeatherHigherConso, ddCur: 2847, ddPrev: 3650, ddRate: -22, heading: 264, prevHdg: 192},
		// E 2022/2021: A's figures, but ST2 misses 25 December 2021: no weather impact.
		{site: "E", year: 2022, energy: 1_440_000, prevE: 1_320_000, cost: 434, prevC: 410, energyRate: 9.09, costRate: 5.85, heading: 288, prevHdg: 264},
	}
	for _, c := range cases {
		got := f.compare(t, c.site, c.year, now)
		name := func(s string) string { return fmt.Sprintf("%s %d %s", c.site, c.year, s) }
		cur, prev := got.CurrentYear, got.PreviousYear
		if cur.Year != cmpYearStr(c.year) || prev.Year != cmpYearStr(c.year-1) || cur.BeginMonth != "01" || cur.EndMonth != "12" || prev.EndMonth != "12" ||
			cur.FromDate != cmpYearStr(c.year)+"-01-01" || cur.ToDate != cmpYearStr(c.year)+"-12-31" || prev.FromDate != cmpYearStr(c.year-1)+"-01-01" || prev.ToDate != cmpYearStr(c.year-1)+"-12-31" {
			t.Errorf("%s %d periods: %+v / %+v", c.site, c.year, cur, prev)
		}
		cmpWant(t, name("energy"), cur.Consumption.Energy, c.energy)
		cmpWant(t, name("previous energy"), prev.Consumption.Energy, c.prevE)
		cmpWant(t, name("cost"), cur.Consumption.Cost, c.cost)
		cmpWant(t, name("previous cost"), prev.Consumption.Cost, c.prevC)
		cmpWant(t, name("energyDifferenceRate"), got.EnergyDifferenceRate, c.energyRate)
		cmpWant(t, name("costDifferenceRate"), got.CostDifferenceRate, c.costRate)
		if !cmpNear(cur.Consumption.EnergiesByTariffHeading["BASE"], c.energy) || len(cur.Consumption.EnergiesByTariffHeading) != 1 {
			t.Errorf("%s %d energiesByTariffHeading %v, want BASE %v", c.site, c.year, cur.Consumption.EnergiesByTariffHeading, c.energy)
		}
		if math.Abs(cur.Consumption.CostsByTariffHeading["BASE"]-c.heading) > 0.005 || math.Abs(prev.Consumption.CostsByTariffHeading["BASE"]-c.prevHdg) > 0.005 {
			t.Errorf("%s %d costsByTariffHeading %v / %v, want BASE %v / %v (energy cost only)", c.site, c.year,
				cur.Consumption.CostsByTariffHeading, prev.Consumption.CostsByTariffHeading, c.heading, c.prevHdg)
		}
		if got.WeatherImpactMessageCode != c.code {
			t.Errorf("%s %d code %q, want %q", c.site, c.year, got.WeatherImpactMessageCode, c.code)
		}
		switch p := got.WeatherImpactParameters; {
		case c.code == "" && p != nil:
			t.Errorf("%s %d parameters %+v without a code", c.site, c.year, *p)
		case c.code != "" && (p == nil || !cmpNear(p.DegreeDaysCurrentYear, c.ddCur) || !cmpNear(p.DegreeDaysPreviousYear, c.ddPrev) || !cmpNear(p.DegreeDaysDifferenceRate, c.ddRate)):
			t.Errorf("%s %d parameters %+v, want %v / %v / %v", c.site, c.year, p, c.ddCur, c.ddPrev, c.ddRate)
		}
	}
}

func cmpYearStr(y int) string { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006") }

func (f *cmpFixture) testUndefinedRates(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, f.loc)

	// C 2022/2021: 2021 used 0 kWh (readings unchanged), NOSC has no standing charge, so 2021
	// costs 0 EUR: both rates are null, the values themselves are 0, not missing. 2022: 600 kWh,
	// 120 EUR. Energies are known and differ, DD +25 %: colder and higher.
	got := f.compare(t, "C", 2022, now)
	cmpWant(t, "C previous energy", got.PreviousYear.Consumption.Energy, 0)
	cmpWant(t, "C previous cost", got.PreviousYear.Consumption.Cost, 0)
	cmpWant(t, "C energy", got.CurrentYear.Consumption.Energy, 600_000)
	cmpWant(t, "C cost", got.CurrentYear.Consumption.Cost, 120)
	cmpWantNull(t, "C energyDifferenceRate", got.EnergyDifferenceRate)
	cmpWantNull(t, "C costDifferenceRate", got.CostDifferenceRate)
	if got.WeatherImpactMessageCode != ColderWeatherHigherConso {
		t.Errorf("C code %q, want %s", got.WeatherImpactMessageCode, ColderWeatherHigherConso)
	}

	// B 2021/2020: B has no reading before 1 January 2021, so 2020 is missing: energy and cost
	// null, both rates null, no weather impact (no energy to say higher or lower of).
	got = f.compare(t, "B", 2021, now)
	cmpWantNull(t, "B 2020 energy", got.PreviousYear.Consumption.Energy)
	cmpWantNull(t, "B 2020 cost", got.PreviousYear.Consumption.Cost)
	cmpWant(t, "B 2021 energy", got.CurrentYear.Consumption.Energy, 1_200_000)
	cmpWantNull(t, "B energyDifferenceRate", got.EnergyDifferenceRate)
	cmpWantNull(t, "B costDifferenceRate", got.CostDifferenceRate)
	if got.WeatherImpactMessageCode != "" || got.WeatherImpactParameters != nil {
		t.Errorf("B 2021 weather impact %q %+v, want none", got.WeatherImpactMessageCode, got.WeatherImpactParameters)
	}
	if len(got.PreviousYear.Consumption.EnergiesByTariffHeading) != 0 || got.PreviousYear.Consumption.CostsByTariffHeading == nil {
		t.Errorf("B 2020 maps %+v, want empty, not null", got.PreviousYear.Consumption)
	}
}

func (f *cmpFixture) testOngoingYearMonthForMonth(t *testing.T) {
	// 15 July 2024 in Paris: June is the last complete month; 2024 and 2023 are compared over
	// January..June.
	now := time.Date(2024, 7, 15, 10, 0, 0, 0, f.loc)
	years, err := ParseYears([]string{"2024"}, now, f.loc)
	if err != nil {
		t.Fatal(err)
	}
	items, err := f.cmp.Compare(f.ctx, f.sites["B"], years, now)
	if err != nil {
		t.Fatal(err)
	}
	got := items[0]
	if c := got.CurrentYear; c.Year != "2024" || c.BeginMonth != "01" || c.EndMonth != "06" || c.FromDate != "2024-01-01" || c.ToDate != "2024-06-30" {
		t.Errorf("current period %+v", c)
	}
	if p := got.PreviousYear; p.Year != "2023" || p.BeginMonth != "01" || p.EndMonth != "06" || p.FromDate != "2023-01-01" || p.ToDate != "2023-06-30" {
		t.Errorf("previous period %+v", p)
	}
	// Energy: 6 × 100 = 600 kWh vs 6 × 110 = 660 kWh → −60 / 660 = −9.09 %.
	cmpWant(t, "energy", got.CurrentYear.Consumption.Energy, 600_000)
	cmpWant(t, "previous energy", got.PreviousYear.Consumption.Energy, 660_000)
	cmpWant(t, "energyDifferenceRate", got.EnergyDifferenceRate, -9.09)
	// Cost: 600 × 0.20 = 120 + 146 × 182 / 366 (days of January..June of a leap year) = 72.6011
	// → 192.6011; 660 × 0.20 = 132 + 146 × 181 / 365 = 72.4 → 204.4; rate −11.7989 / 204.4 = −5.77 %.
	cmpWant(t, "cost", got.CurrentYear.Consumption.Cost, 120+146.0*182/366)
	cmpWant(t, "previous cost", got.PreviousYear.Consumption.Cost, 204.4)
	cmpWant(t, "costDifferenceRate", got.CostDifferenceRate, -5.77)
	// DD: 182 days × 9 = 1638 vs 181 × 7.8 = 1411.8 → 226.2 / 1411.8 = +16.02 %: colder, lower.
	if got.WeatherImpactMessageCode != ColderWeatherLowerConso || got.WeatherImpactParameters == nil ||
		!cmpNear(got.WeatherImpactParameters.DegreeDaysCurrentYear, 1638) || !cmpNear(got.WeatherImpactParameters.DegreeDaysPreviousYear, 1411.8) ||
		!cmpNear(got.WeatherImpactParameters.DegreeDaysDifferenceRate, 16.02) {
		t.Errorf("weather impact %q %+v, want COLDER_WEATHER_LOWER_CONSO 1638 / 1411.8 / 16.02", got.WeatherImpactMessageCode, got.WeatherImpactParameters)
	}

	// The same figures as the consumption engine over the same months: its MONTHS steps sum to
	// the comparison's energy, and the whole period as one YEARS step... is the comparison.
	res, err := f.engine.Compute(f.ctx, f.sites["B"], consumption.Request{Start: time.Date(2024, 1, 1, 0, 0, 0, 0, f.loc),
		End: time.Date(2024, 7, 1, 0, 0, 0, 0, f.loc), StepUnit: consumption.UnitMonths, StepValue: 1, IndexStrategy: consumption.StrategySurroundingEstimated})
	if err != nil {
		t.Fatal(err)
	}
	sumE, sumC := 0.0, 0.0
	for _, c := range res.Consumptions {
		if c.EnergyMeter.Total == nil || c.Cost == nil {
			t.Fatalf("month %v without data", c.Period)
		}
		sumE += *c.EnergyMeter.Total
		sumC += c.Cost.Total
	}
	if len(res.Consumptions) != 6 || !cmpNear(sumE, *got.CurrentYear.Consumption.Energy) || math.Abs(sumC-*got.CurrentYear.Consumption.Cost) > 0.011 {
		t.Errorf("engine by month: %d months, %v Wh, %v EUR; comparison %v Wh, %v EUR", len(res.Consumptions), sumE, sumC,
			*got.CurrentYear.Consumption.Energy, *got.CurrentYear.Consumption.Cost)
	}
}

func (f *cmpFixture) testEqualsTheEngineYearlyTotal(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, f.loc)
	items, err := f.cmp.Compare(f.ctx, f.sites["A"], []int{2022, 2023}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		y := it.CurrentYear.Year
		start, _ := time.ParseInLocation(time.DateOnly, it.CurrentYear.FromDate, f.loc)
		res, err := f.engine.Compute(f.ctx, f.sites["A"], consumption.Request{Start: start, End: start.AddDate(1, 0, 0),
			StepUnit: consumption.UnitYears, StepValue: 1, IndexStrategy: consumption.StrategySurroundingEstimated})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Consumptions[0]
		if len(res.Consumptions) != 1 || *c.EnergyMeter.Total != *it.CurrentYear.Consumption.Energy || c.Cost.Total != *it.CurrentYear.Consumption.Cost {
			t.Errorf("%s: engine %v Wh %v EUR, comparison %v Wh %v EUR", y, *c.EnergyMeter.Total, c.Cost.Total,
				*it.CurrentYear.Consumption.Energy, *it.CurrentYear.Consumption.Cost)
		}
	}
	// Items come in the order asked, and 2022 as the previous year of 2023 is the 2022 of the first.
	if items[0].CurrentYear.Year != "2022" || *items[1].PreviousYear.Consumption.Energy != *items[0].CurrentYear.Consumption.Energy {
		t.Errorf("order or shared year: %+v", items)
	}
}

func TestParseComparisonYears(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2024, 7, 15, 10, 0, 0, 0, paris)
	if y, err := ParseYears([]string{"2023,2024"}, now, paris); err != nil || len(y) != 2 || y[0] != 2023 || y[1] != 2024 {
		t.Fatalf("2023,2024: %v %v", y, err)
	}
	if y, err := ParseYears([]string{"2024", " 2020"}, now, paris); err != nil || len(y) != 2 || y[1] != 2020 {
		t.Fatalf("repeated parameter: %v %v", y, err)
	}
	// 31 January 2024 23:30 UTC is already 1 February in Paris: January 2024 is complete there.
	if y, err := ParseYears([]string{"2024"}, time.Date(2024, 1, 31, 23, 30, 0, 0, time.UTC), paris); err != nil || len(y) != 1 {
		t.Fatalf("2024 on 1 February (Paris): %v %v", y, err)
	}
	bad := []struct {
		raw      []string
		now      time.Time
		value    string
		mentions string
	}{
		{[]string{"2023,24"}, now, "24", "yyyy"},
		{[]string{"2023,,2024"}, now, "", "yyyy"},
		{[]string{"twenty"}, now, "twenty", "yyyy"},
		{[]string{"2023,2023"}, now, "2023", "twice"},
		{[]string{"2023", "2023"}, now, "2023", "twice"},
		{[]string{"2025"}, now, "2025", "future"},
		{[]string{"1999"}, now, "1999", "before 2000"},
		{[]string{"2024"}, time.Date(2024, 1, 20, 12, 0, 0, 0, paris), "2024", "no complete month"},
		{[]string{"2010,2011,2012,2013,2014,2015,2016,2017,2018,2019,2020"}, now, "2010,2011,2012,2013,2014,2015,2016,2017,2018,2019,2020", "at most 10"},
		{nil, now, "", "required"},
	}
	for _, b := range bad {
		_, err := ParseYears(b.raw, b.now, paris)
		var ye *YearsError
		if !errors.As(err, &ye) || ye.Value != b.value || !strings.Contains(ye.Message, b.mentions) {
			t.Errorf("%q: %v, want value %q and a message mentioning %q", b.raw, err, b.value, b.mentions)
		}
	}
}
