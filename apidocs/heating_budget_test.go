package apidocs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"energy/query/advices"
	"energy/query/consumption"
	"energy/query/heating"
	"energy/query/weather"
	"energy/schema/registry"
)

// budgetClimate: every local day has one observation at noon, the days cycling through 0, 10
// and 20 °C. With base 20 kWh/day, slope 4 kWh per degree day and balance point 15 °C a day
// uses 20 + 4 × 15 = 80 kWh at 0 °C, 20 + 4 × 5 = 40 at 10 °C and 20 at 20 °C. Only Tb = 15
// puts the three (HDD, kWh) points on one line, so the fit recovers it exactly (R² = 1).
var budgetTemps = []float64{0, 10, 20}

var budgetKWh = map[float64]int64{0: 80, 10: 40, 20: 20}

type budgetSite struct {
	station   string       // the site's weather station
	today     heating.Date // the day of the last reading (at its local midnight)
	first     heating.Date // first day with weather
	tempOf    func(heating.Date) float64
	readFirst heating.Date // first reading day (400 days before today)
}

// newBudgetSite is a site read up to today, with weather from 1 January two years ago.
func newBudgetSite(t *testing.T, h *harness) budgetSite {
	t.Helper()
	loc, _ := time.LoadLocation("Europe/Paris")
	today := heating.DateOf(time.Now(), loc)
	return newBudgetSiteAt(t, h, "ST", today, heating.Date{Year: today.Year - 2, Month: 1, Day: 1})
}

// newBudgetSiteAt stores the station's weather from first to the day before today, whatever
// the clock says: the site's readings (gasReadings, elecReadings) end at today's midnight.
func newBudgetSiteAt(t *testing.T, h *harness, station string, today, first heating.Date) budgetSite {
	t.Helper()
	loc, _ := time.LoadLocation("Europe/Paris")
	b := budgetSite{station: station, today: today, first: first, readFirst: today.AddDays(-400)}
	b.tempOf = func(d heating.Date) float64 {
		n := int(d.Midnight(time.UTC).Sub(b.first.Midnight(time.UTC)).Hours()/24 + 0.5)
		return budgetTemps[n%3]
	}
	var obs []weather.Observation
	for d := b.first; d != today; d = d.AddDays(1) {
		obs = append(obs, weather.Observation{Date: d.Midnight(loc).Add(12 * time.Hour), Temperature: b.tempOf(d), Cloudiness: 4})
	}
	ctx := context.Background()
	if err := h.reg.PutStation(ctx, registry.Station{TenantID: "acme", StationID: station, Name: "Station", Latitude: 48, Longitude: 2}); err != nil {
		t.Fatal(err)
	}
	if err := weather.NewStore(h.db).Put(ctx, "acme", station, obs); err != nil {
		t.Fatal(err)
	}
	return b
}

// gasReadings stores daily gas indexes in m3 with 10 kWh/m3, so a day's m3 = kWh / 10.
func (b budgetSite) gasReadings(t *testing.T, h *harness, site string) {
	t.Helper()
	loc, _ := time.LoadLocation("Europe/Paris")
	batch, err := h.db.Conn.PrepareBatch(context.Background(), "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	var index int64 = 5000
	for d := b.readFirst; ; d = d.AddDays(1) {
		ts := d.Midnight(loc)
		if err := batch.Append("acme", site, "GAS1", ts.UTC(), uint8(0), "MKT_CYCLIC_DISTRIBUTOR", ts.UTC(), index, "m3", []string{"kWh"}, []float64{10}, "t"); err != nil {
			t.Fatal(err)
		}
		if d == b.today {
			break
		}
		index += budgetKWh[b.tempOf(d)] / 10
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
}

// elecReadings stores daily electricity indexes of dial 1 in Wh.
func (b budgetSite) elecReadings(t *testing.T, h *harness, site string) {
	t.Helper()
	loc, _ := time.LoadLocation("Europe/Paris")
	batch, err := h.db.Conn.PrepareBatch(context.Background(), "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	var index int64 = 1_000_000
	for d := b.readFirst; ; d = d.AddDays(1) {
		ts := d.Midnight(loc)
		if err := batch.Append("acme", site, "PDL1", ts.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", ts.UTC(), "1", index, "t"); err != nil {
			t.Fatal(err)
		}
		if d == b.today {
			break
		}
		index += budgetKWh[b.tempOf(d)] * 1000
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
}

// normalDD is the degree days at tb of a normal year: the mean over the complete calendar
// years of weather (from first's year to the one before today's) of Σ max(0, tb − mean) over
// their days.
func (b budgetSite) normalDD(tb float64) float64 {
	var sum float64
	for y := b.first.Year; y < b.today.Year; y++ {
		for d := (heating.Date{Year: y, Month: 1, Day: 1}); d.Year == y; d = d.AddDays(1) {
			sum += math.Max(0, tb-b.tempOf(d))
		}
	}
	return sum / float64(b.today.Year-b.first.Year)
}

func TestBudgetMatrixAndHeatingBudgetOnGasAndElectricSites(t *testing.T) {
	h := newHarness(t)
	b := newBudgetSite(t, h)
	reader := h.token("acme", "read")
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/tariffs/BASE-1", `{"option":"BASE","dialHeadings":{"1":"BASE"},"prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.25}}]}`},
		{"/v2/sites/GASSITE", `{"weatherStationId":"ST","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
		{"/v2/sites/ELECSITE", `{"weatherStationId":"ST","tariffId":"BASE-1","heatingFluid":"ELEC"}`},
	} {
		if st, body, _ := h.do("PUT", put.path, h.admin, put.body); st != 200 {
			t.Fatalf("%s: %d %s", put.path, st, body)
		}
	}
	b.gasReadings(t, h, "GASSITE")
	b.elecReadings(t, h, "ELECSITE")

	// Worked by hand: base 20 kWh/day, slope 4 kWh/DD, Tb 15 °C. The default schedule's mean set
	// point is (16 h × 19 + 8 h × 16) / 24 = 18 °C. For t = [C, E] the mean set point is
	// (16 C + 8 E) / 24 and the balance point moves by its difference with 18. The yearly energy
	// is 20 × 365 + 4 × NDD(Tb(t)) kWh, priced 0.10 EUR/kWh (gas) or 0.25 (electricity, one
	// heading). The fit period is the 365 days ending yesterday (the last reading is at today's
	// midnight): 365 daily intervals, confidence 1.
	for _, c := range []struct {
		site  string
		fluid string
		price float64
	}{{"GASSITE", "GAS", 0.1}, {"ELECSITE", "ELEC", 0.25}} {
		t.Run(c.site, func(t *testing.T) {
			st, body, hdr := h.do("GET", "/v1/sites/"+c.site+"/budget/matrix", reader, "")
			if st != 200 || hdr.Get("X-Cache") != "MISS" {
				t.Fatalf("matrix: %d %s %s", st, hdr.Get("X-Cache"), body)
			}
			var m heating.Matrix
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			wantMatrixMembers(t, body)
			md := m.MetaData
			if md.Model != "DEGREE_DAYS" || md.HeatingFluid != c.fluid || md.BalancePointC == nil || *md.BalancePointC != 15 ||
				math.Abs(md.BaseKWhPerDay-20) > 1e-6 || math.Abs(md.KWhPerDegreeDay-4) > 1e-6 || math.Abs(md.R2-1) > 1e-9 ||
				md.Intervals != 365 || md.CoveredDays != 365 || m.ConfidenceIndex != 1 || md.MeanSetpointC != 18 || md.PriceEURPerKWh != c.price ||
				md.FitPeriod.To != b.today.AddDays(-1).String() || md.FitPeriod.From != b.today.AddDays(-365).String() ||
				len(md.NormalYears) != 2 || md.NormalYears[1] != b.today.Year-1 || math.Abs(*md.NormalYearDegreeDays-b.normalDD(15)) > 1e-6 {
				t.Fatalf("metaData %s", body)
			}
			var fitDD float64
			for d := b.today.AddDays(-365); d != b.today; d = d.AddDays(1) {
				fitDD += math.Max(0, 15-b.tempOf(d))
			}
			if math.Abs(*md.FitPeriodDegreeDays-fitDD) > 1e-6 {
				t.Fatalf("fit period degree days %v, want %v", *md.FitPeriodDegreeDays, fitDD)
			}
			if len(m.BudgetVectors) != 25 || m.BudgetVectors[0].T != [2]float64{18, 14} || m.BudgetVectors[24].T != [2]float64{22, 18} || m.BudgetVectors[6].T != [2]float64{19, 15} {
				t.Fatalf("vectors %v", m.BudgetVectors)
			}
			for _, v := range m.BudgetVectors {
				tb := 15 + (16*v.T[0]+8*v.T[1])/24 - 18
				want := math.Round((20*365+4*b.normalDD(tb))*c.price*100) / 100
				if math.Abs(v.B-want) > 0.005 {
					t.Fatalf("b(%v) = %v, want %v", v.T, v.B, want)
				}
			}
			st, body, _ = h.do("GET", "/v1/sites/"+c.site+"/budget/heating", reader, "")
			wantMembers(t, "heating budget", body, "budget", "temperatures", "type")
			want := math.Round((20*365+4*b.normalDD(15))*c.price*100) / 100
			var hb heating.HeatingBudget
			if st != 200 || json.Unmarshal(body, &hb) != nil || hb.Type != "TOTAL" || math.Abs(hb.Budget-want) > 0.005 || hb.Temperatures["COMFORT"] != 19 {
				t.Fatalf("heating budget %d %s, want %v", st, body, want)
			}
			if st, _, hdr = h.do("GET", "/v1/sites/"+c.site+"/budget/matrix", reader, ""); st != 200 || hdr.Get("X-Cache") != "HIT" {
				t.Fatalf("second matrix: %d %s", st, hdr.Get("X-Cache"))
			}
		})
	}

	// A schedule change invalidates the cached budget: COMFORT 21 all week moves Tb by +3. Both
	// answers were polled: they are computed again before the PUT answers, and hit.
	if st, body, _ := h.do("PUT", "/v1/sites/GASSITE/heating-schedule", h.admin, `{"temperatures":{"COMFORT":21,"ECO":16},"weeklyCalendar":[{"offset":0,"temperature":"COMFORT"}]}`); st != 200 {
		t.Fatalf("schedule: %d %s", st, body)
	}
	st, body, hdr := h.do("GET", "/v1/sites/GASSITE/budget/heating", reader, "")
	want := math.Round((20*365+4*b.normalDD(15))*0.1*100) / 100 // the current schedule itself: Tb stays 15
	var hb heating.HeatingBudget
	if st != 200 || hdr.Get("X-Cache") != "HIT" || json.Unmarshal(body, &hb) != nil || hb.Temperatures["COMFORT"] != 21 || math.Abs(hb.Budget-want) > 0.005 {
		t.Fatalf("after schedule change: %d %s %s", st, hdr.Get("X-Cache"), body)
	}
	st, body, hdr = h.do("GET", "/v1/sites/GASSITE/budget/matrix", reader, "")
	var m heating.Matrix
	// Mean set point 21 now; t = [18, 14] gives 18: Tb = 15 + 18 − 21 = 12.
	if st != 200 || hdr.Get("X-Cache") != "HIT" || json.Unmarshal(body, &m) != nil || m.MetaData.MeanSetpointC != 21 ||
		math.Abs(m.BudgetVectors[0].B-math.Round((20*365+4*b.normalDD(12))*0.1*100)/100) > 0.005 {
		t.Fatalf("matrix after schedule change: %d %s %s", st, hdr.Get("X-Cache"), body)
	}
}

// gasArchive is an archive file of the site's daily gas indexes (m3, 10 kWh/m3) from readFirst
// to today, generated at gen, a day using base + 4 × max(0, 15 − its mean) kWh; the days in
// skip have no reading.
func (b budgetSite) gasArchive(site string, base int64, gen time.Time, skip ...heating.Date) string {
	loc, _ := time.LoadLocation("Europe/Paris")
	var readings []string
	var index int64 = 5000
	for d := b.readFirst; ; d = d.AddDays(1) {
		if !slices.Contains(skip, d) {
			readings = append(readings, fmt.Sprintf("%s %d 10 %s", d.Midnight(loc).UTC().Format(time.RFC3339), index, gen.UTC().Format(time.RFC3339)))
		}
		if d == b.today {
			return gasIndexes(site, readings...)
		}
		index += (base + budgetKWh[b.tempOf(d)] - 20) / 10
	}
}

// TestBudgetCacheInvalidatedByAnIngestedArchive: readings that reach the site through the
// archive intake (submitted, then stored by a job) invalidate both cached budgets.
//
// Worked by hand (the climate of the test above, the default schedule, gas at 0.10 EUR/kWh):
// the first archive lacks the reading of 100 days ago, so the 365 days of the fit are 364
// intervals, one of them two days long; the fit is still exact: base 20, slope 4, Tb 15. The
// second archive is the distributor's correction (a later generation) of every reading with a
// base of 30 kWh/day, and brings the missing one: 365 intervals, base 30. The heating budget is
// (base × 365 + 4 × NDD(15)) × 0.10 EUR.
func TestBudgetCacheInvalidatedByAnIngestedArchive(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	b := newBudgetSite(t, h.harness)
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/sites/GASSITE", `{"weatherStationId":"ST","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
	} {
		if st, body, _ := h.do("PUT", put.path, h.admin, put.body); st != 200 {
			t.Fatalf("%s: %d %s", put.path, st, body)
		}
	}
	collector, reader := h.token("acme", "collect"), h.token("acme", "read")
	get := func(path, wantCache string, out any) {
		t.Helper()
		st, body, hdr := h.do("GET", "/v1/sites/GASSITE/budget/"+path, reader, "")
		if st != 200 || !cacheIs(hdr.Get("X-Cache"), wantCache) || json.Unmarshal(body, out) != nil {
			t.Fatalf("%s: %d X-Cache %s, want 200 %s: %s", path, st, hdr.Get("X-Cache"), wantCache, body)
		}
	}
	check := func(step string, base float64, intervals int, wantCache string) {
		t.Helper()
		var m heating.Matrix
		get("matrix", wantCache, &m)
		md := m.MetaData
		if md.Intervals != intervals || md.CoveredDays != 365 || md.BalancePointC == nil || *md.BalancePointC != 15 ||
			math.Abs(md.BaseKWhPerDay-base) > 1e-6 || math.Abs(md.KWhPerDegreeDay-4) > 1e-6 || math.Abs(md.R2-1) > 1e-9 {
			t.Fatalf("%s: metaData %+v, want %d intervals over 365 days, base %v, slope 4, Tb 15", step, md, intervals, base)
		}
		tb := 15 + (16*18+8*14)/24.0 - 18 // [18, 14]: the mean set point moves from 18 to 16.67 °C
		if want := math.Round((base*365+4*b.normalDD(tb))*0.1*100) / 100; math.Abs(m.BudgetVectors[0].B-want) > 0.005 {
			t.Fatalf("%s: b(18, 14) = %v, want %v", step, m.BudgetVectors[0].B, want)
		}
		var hb heating.HeatingBudget
		get("heating", wantCache, &hb)
		if want := math.Round((base*365+4*b.normalDD(15))*0.1*100) / 100; math.Abs(hb.Budget-want) > 0.005 {
			t.Fatalf("%s: heating budget %v, want %v", step, hb.Budget, want)
		}
	}

	gen := time.Now().Truncate(time.Second)
	h.ingestArchive(collector, b.gasArchive("GASSITE", 20, gen.Add(-time.Minute), b.today.AddDays(-100)))
	check("first archive", 20, 364, "MISS")
	check("first archive, again", 20, 364, "HIT")

	h.ingestArchive(collector, b.gasArchive("GASSITE", 30, gen))
	check("corrected archive", 30, 365, "HIT") // computed again before the job was DONE
	check("corrected archive, again", 30, 365, "HIT")
}

// wantMatrixMembers checks a budget matrix answer has exactly the members clients are promised,
// at the level they are promised: a member added, dropped or moved between levels fails it.
func wantMatrixMembers(t *testing.T, body []byte) {
	t.Helper()
	wantMembers(t, "matrix", body, "budgetVectors", "confidenceIndex", "metaData")
	var m struct {
		BudgetVectors []json.RawMessage `json:"budgetVectors"`
		MetaData      json.RawMessage   `json:"metaData"`
	}
	if err := json.Unmarshal(body, &m); err != nil || len(m.BudgetVectors) == 0 {
		t.Fatalf("matrix %s: %v", body, err)
	}
	wantMembers(t, "budget vector", m.BudgetVectors[0], "b", "t")
	wantMembers(t, "metaData", m.MetaData, "balancePointC", "baseKwhPerDay", "coveredDays", "fitPeriod", "fitPeriodDegreeDays",
		"heatingFluid", "intervals", "kwhPerDegreeDay", "meanSetpointC", "model", "normalYearDegreeDays", "normalYears",
		"priceEurPerKwh", "r2", "units")
	var md struct {
		FitPeriod json.RawMessage `json:"fitPeriod"`
		Units     json.RawMessage `json:"units"`
	}
	if err := json.Unmarshal(m.MetaData, &md); err != nil {
		t.Fatal(err)
	}
	wantMembers(t, "fitPeriod", md.FitPeriod, "from", "to")
	wantMembers(t, "units", md.Units, "budget", "energy", "temperature")
}

// wantMembers checks the JSON object has exactly the members want (sorted).
func wantMembers(t *testing.T, what string, object []byte, want ...string) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(object, &members); err != nil {
		t.Fatalf("%s %s: %v", what, object, err)
	}
	got := slices.Sorted(maps.Keys(members))
	if !slices.Equal(got, want) {
		t.Errorf("%s has members %v, want exactly %v", what, got, want)
	}
}

func TestBudgetInsufficientData(t *testing.T) {
	h := newHarness(t)
	b := newBudgetSite(t, h)
	reader := h.token("acme", "read")
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/sites/NONE", `{"weatherStationId":"ST","gasTariffId":"GAS-1"}`},
		{"/v2/sites/NOSTATION", `{"gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
		{"/v2/sites/NOTARIFF", `{"weatherStationId":"ST","heatingFluid":"GAS"}`},
		{"/v2/sites/NOREADINGS", `{"weatherStationId":"ST","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
	} {
		if st, body, _ := h.do("PUT", put.path, h.admin, put.body); st != 200 {
			t.Fatalf("%s: %d %s", put.path, st, body)
		}
	}
	b.gasReadings(t, h, "NOTARIFF")
	for _, c := range []struct{ site, mention string }{
		{"NONE", "heatingFluid NONE"},
		{"NOSTATION", "weather station"},
		{"NOTARIFF", "gasTariffId"},
		{"NOREADINGS", "no pair of consecutive readings"},
	} {
		for _, path := range []string{"/budget/matrix", "/budget/heating"} {
			st, body, hdr := h.do("GET", "/v1/sites/"+c.site+path, reader, "")
			h.wantError(st, body, hdr, http.StatusUnprocessableEntity, "INSUFFICIENT_DATA", c.mention)
		}
	}
	st, body, hdr := h.do("GET", "/v1/sites/UNKNOWN/budget/matrix", reader, "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND")
	st, body, hdr = h.do("GET", "/v1/sites/NONE/budget/heating", h.token("globex", "read"), "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND")
}

// siteAdviceHarness serves the recommendation API with SITE_ID answered from h's sites, and
// gives a token of scope advices of tenant acme.
func siteAdviceHarness(t *testing.T, h *harness) (*harness, string) {
	t.Helper()
	svc := advices.NewService(h.db, advices.Config{Workers: 1,
		Heating: advices.ModelHeating{Sites: h.reg, Budgeter: heating.NewBudgeter(h.db, h.reg, consumption.NewEngine(h.db, h.reg, 0.052))}})
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	handler, _ := NewAdvice(Config{Registry: h.reg, Ready: h.db.Ping, Advices: svc})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	a := &harness{t: t, db: h.db, reg: h.reg, srv: srv, admin: h.admin}
	return a, a.token("acme", "advices")
}

// TestAdviceSiteIDFromHeatingModel: SITE_ID fills the heating consumption of the site's fluid
// from the model fitted on its readings. Worked by hand (see the budget test above): slope 4
// kWh per degree day at Tb 15 °C, so the heating part of a normal year is 4 × NDD(15) kWh; the
// set-point advice saves 7 % per degree above 19 °C: at 21 °C, 14 % of it at 0.11 EUR/kWh.
func TestAdviceSiteIDFromHeatingModel(t *testing.T) {
	h := newHarness(t)
	b := newBudgetSite(t, h)
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/sites/GASSITE", `{"weatherStationId":"ST","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
		{"/v2/sites/NOHEAT", `{"weatherStationId":"ST","heatingFluid":"NONE"}`},
	} {
		if st, body, _ := h.do("PUT", put.path, h.admin, put.body); st != 200 {
			t.Fatalf("%s: %d %s", put.path, st, body)
		}
	}
	b.gasReadings(t, h, "GASSITE")

	a, token := siteAdviceHarness(t, h)

	j := waitAdviceJob(a, token, submitAdvices(a, token, `[{"input": {"SITE_ID": "GASSITE", "HOUSING_HEATING_SETPOINT": 21}}]`))
	if j.Status != "DONE" || len(j.Result) != 1 {
		t.Fatalf("job %+v, want DONE with one result", j)
	}
	want := 4 * b.normalDD(15)
	ctx := j.Result[0].Context
	if got, _ := ctx["HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"].(float64); math.Abs(got-want) > 1e-6 || ctx["heatingFluid"] != "GAS" {
		t.Fatalf("context %v, want the gas heating consumption %v kWh", ctx, want)
	}
	if sp := j.Result[0].Advices["LOWER_HEATING_SETPOINT"]; math.Abs(sp.SavingsKwh-math.Round(want*0.14*100)/100) > 0.006 {
		t.Errorf("LOWER_HEATING_SETPOINT %+v, want %.2f kWh", sp, want*0.14)
	}

	for site, reason := range map[string]string{"ELSEWHERE": `does not exist`, "NOHEAT": `has no heating fluid`} {
		st, body, _ := a.do(http.MethodPost, "/v1/jobs/advices", token, `[{"input": {"SITE_ID": "`+site+`"}}]`)
		if st != http.StatusBadRequest || !strings.Contains(string(body), "[0].input.SITE_ID") || !strings.Contains(string(body), reason) {
			t.Errorf("SITE_ID %s: %d %s, want 400 naming [0].input.SITE_ID: %s", site, st, body, reason)
		}
	}
}
