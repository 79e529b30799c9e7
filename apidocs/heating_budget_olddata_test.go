package apidocs

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"energy/query/heating"
)

// isLeap tells whether year has 366 days.
func isLeap(year int) bool { return time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366 }

// calendarTwin is the latest year up to 2019 whose year and the one before have the days of
// year and the year before: a data set moved from one to the other keeps every date's place in
// its calendar year (today's 2026 gives 2019).
func calendarTwin(year int) int {
	for y := 2019; ; y-- {
		if isLeap(y) == isLeap(year) && isLeap(y-1) == isLeap(year-1) {
			return y
		}
	}
}

// TestBudgetFittedWhereTheDataIs: a site whose readings and station weather stopped years ago
// (2019 for a clock in 2026) gets its matrix, heating budget and SITE_ID consumption fitted on
// its last year of readings, with the numbers of the same data moved to end today.
//
// Worked by hand (the climate of TestBudgetMatrixAndHeatingBudgetOnGasAndElectricSites: days
// cycling 0, 10, 20 °C; a day uses 20 + 4 × max(0, 15 − mean) kWh): each station has weather from
// 1 January of the year before the last reading, so the one normal year is that year; the last
// reading is at local midnight of "today" (the data's), so the fit period is the 365 days before
// it, 365 daily intervals: base 20 kWh/day, 4 kWh per degree day, balance point 15 °C, R² 1.
// Budgets are (20 × 365 + 4 × NDD(Tb(t))) × 0.10 EUR (gas) or × 0.25 EUR (electricity).
func TestBudgetFittedWhereTheDataIs(t *testing.T) {
	h := newHarness(t)
	loc, _ := time.LoadLocation("Europe/Paris")
	now := heating.DateOf(time.Now(), loc)
	oldYear := calendarTwin(now.Year)
	oldToday := heating.Date{Year: oldYear, Month: now.Month, Day: now.Day}
	recent := newBudgetSiteAt(t, h, "NEW", now, heating.Date{Year: now.Year - 1, Month: 1, Day: 1})
	old := newBudgetSiteAt(t, h, "OLD", oldToday, heating.Date{Year: oldYear - 1, Month: 1, Day: 1})
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/tariffs/BASE-1", `{"option":"BASE","dialHeadings":{"1":"BASE"},"prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.25}}]}`},
		{"/v2/sites/OLDGAS", `{"weatherStationId":"OLD","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
		{"/v2/sites/OLDELEC", `{"weatherStationId":"OLD","tariffId":"BASE-1","heatingFluid":"ELEC"}`},
		{"/v2/sites/NEWGAS", `{"weatherStationId":"NEW","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
	} {
		if st, body, _ := h.do("PUT", put.path, h.admin, put.body); st != 200 {
			t.Fatalf("%s: %d %s", put.path, st, body)
		}
	}
	old.gasReadings(t, h, "OLDGAS")
	old.elecReadings(t, h, "OLDELEC")
	recent.gasReadings(t, h, "NEWGAS")
	reader := h.token("acme", "read")

	type answer struct {
		matrix heating.Matrix
		budget heating.HeatingBudget
	}
	answers := map[string]answer{}
	for _, c := range []struct {
		site  string
		data  budgetSite
		fluid string
		price float64
	}{{"OLDGAS", old, "GAS", 0.1}, {"OLDELEC", old, "ELEC", 0.25}, {"NEWGAS", recent, "GAS", 0.1}} {
		st, body, _ := h.do("GET", "/v1/sites/"+c.site+"/budget/matrix", reader, "")
		var a answer
		if st != 200 || json.Unmarshal(body, &a.matrix) != nil {
			t.Fatalf("%s matrix: %d %s", c.site, st, body)
		}
		md, b := a.matrix.MetaData, c.data
		if md.HeatingFluid != c.fluid || md.BalancePointC == nil || *md.BalancePointC != 15 || math.Abs(md.BaseKWhPerDay-20) > 1e-6 ||
			math.Abs(md.KWhPerDegreeDay-4) > 1e-6 || math.Abs(md.R2-1) > 1e-9 || md.Intervals != 365 || md.CoveredDays != 365 ||
			a.matrix.ConfidenceIndex != 1 || md.PriceEURPerKWh != c.price {
			t.Fatalf("%s: metaData %s, want base 20, slope 4, Tb 15 over 365 daily intervals at %v EUR/kWh", c.site, body, c.price)
		}
		if md.FitPeriod.To != b.today.AddDays(-1).String() || md.FitPeriod.From != b.today.AddDays(-365).String() {
			t.Fatalf("%s: fit period %+v, want the 365 days ending %s (the last reading is at %s 00:00)", c.site, md.FitPeriod, b.today.AddDays(-1), b.today)
		}
		if !slices.Equal(md.NormalYears, []int{b.today.Year - 1}) || math.Abs(*md.NormalYearDegreeDays-b.normalDD(15)) > 1e-6 {
			t.Fatalf("%s: normal years %v with %v degree days, want [%d] with %v", c.site, md.NormalYears, *md.NormalYearDegreeDays, b.today.Year-1, b.normalDD(15))
		}
		var fitDD float64
		for d := b.today.AddDays(-365); d != b.today; d = d.AddDays(1) {
			fitDD += math.Max(0, 15-b.tempOf(d))
		}
		if math.Abs(*md.FitPeriodDegreeDays-fitDD) > 1e-6 {
			t.Fatalf("%s: fit period degree days %v, want %v", c.site, *md.FitPeriodDegreeDays, fitDD)
		}
		for _, v := range a.matrix.BudgetVectors {
			tb := 15 + (16*v.T[0]+8*v.T[1])/24 - 18
			if want := math.Round((20*365+4*b.normalDD(tb))*c.price*100) / 100; math.Abs(v.B-want) > 0.005 {
				t.Fatalf("%s: b(%v) = %v, want %v", c.site, v.T, v.B, want)
			}
		}
		st, body, _ = h.do("GET", "/v1/sites/"+c.site+"/budget/heating", reader, "")
		want := math.Round((20*365+4*b.normalDD(15))*c.price*100) / 100
		if st != 200 || json.Unmarshal(body, &a.budget) != nil || math.Abs(a.budget.Budget-want) > 0.005 {
			t.Fatalf("%s heating budget: %d %s, want %v", c.site, st, body, want)
		}
		answers[c.site] = a
	}

	// Moved to end today, the same data gives the same numbers: only the dates move.
	o, r := answers["OLDGAS"], answers["NEWGAS"]
	shifted := o.matrix
	shifted.MetaData.FitPeriod, shifted.MetaData.NormalYears = r.matrix.MetaData.FitPeriod, r.matrix.MetaData.NormalYears
	if got, want := string(mustJSON(t, shifted)), string(mustJSON(t, r.matrix)); got != want {
		t.Errorf("matrix of data ending %s (dates moved):\n%s\nof the same data ending %s:\n%s", old.today, got, recent.today, want)
	}
	if o.budget.Budget != r.budget.Budget {
		t.Errorf("heating budget %v on data ending %s, %v on the same data ending %s", o.budget.Budget, old.today, r.budget.Budget, recent.today)
	}

	// SITE_ID on the old site: the heating part of its normal year, 4 × NDD(15) kWh, as on the
	// recent one.
	a, token := siteAdviceHarness(t, h)
	j := waitAdviceJob(a, token, submitAdvices(a, token, `[{"input": {"SITE_ID": "OLDGAS"}}, {"input": {"SITE_ID": "NEWGAS"}}]`))
	if j.Status != "DONE" || len(j.Result) != 2 {
		t.Fatalf("job %+v, want DONE with two results", j)
	}
	oldKWh, _ := j.Result[0].Context["HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"].(float64)
	newKWh, _ := j.Result[1].Context["HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"].(float64)
	if want := 4 * old.normalDD(15); math.Abs(oldKWh-want) > 1e-6 || oldKWh != newKWh {
		t.Fatalf("SITE_ID heating consumption %v kWh (data ending %s) and %v (ending %s), want %v for both", oldKWh, old.today, newKWh, recent.today, want)
	}
}
