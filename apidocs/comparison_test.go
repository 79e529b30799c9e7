package apidocs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/comparison"
)

// comparisonFixture: site P (Europe/Paris) on tariff T1 (BASE 0.20 EUR/kWh, 146 EUR/year of
// standing charge) and station ST (one observation a day at noon: 10 °C in 2021, 8 °C in
// 2022); smart indexes on the 1st of each month from January 2021 to January 2023, rising
// 100 kWh a month in 2021 and 120 kWh a month in 2022.
func comparisonFixture(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	paris, _ := time.LoadLocation("Europe/Paris")
	var obs []string
	for d := time.Date(2021, 1, 1, 12, 0, 0, 0, paris); d.Year() <= 2022; d = d.AddDate(0, 0, 1) {
		temp := 10
		if d.Year() == 2022 {
			temp = 8
		}
		obs = append(obs, fmt.Sprintf(`{"date":%q,"temperature":%d,"wind":10,"cloudiness":4}`, d.Format(time.RFC3339), temp))
	}
	for _, r := range []struct{ path, body string }{
		{"/v1/weather-stations/ST", `{"name":"Paris-Orly","latitude":48.72,"longitude":2.38}`},
		{"/v2/tariffs/T1", `{"option":"BASE","dialHeadings":{"1":"BASE"},"prices":[{"validFrom":"2020-01-01","byHeading":{"BASE":0.2}}],"standingCharges":[{"validFrom":"2020-01-01","yearly":{"subscription":146}}]}`},
		{"/v2/sites/P", `{"weatherStationId":"ST","tariffId":"T1"}`},
		{"/v1/weather-stations/ST/observations", "[" + strings.Join(obs, ",") + "]"},
	} {
		if st, b, _ := h.do("PUT", r.path, h.admin, r.body); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", r.path, st, b)
		}
	}
	ctx := context.Background()
	b, err := h.db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	value := int64(5_000_000)
	for m := time.Date(2021, 1, 1, 0, 0, 0, 0, paris); !m.After(time.Date(2023, 1, 1, 0, 0, 0, 0, paris)); m = m.AddDate(0, 1, 0) {
		if err := b.Append("acme", "P", "POD-P", m.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC), "1", value, "test"); err != nil {
			t.Fatal(err)
		}
		value += map[int]int64{2021: 100_000, 2022: 120_000}[m.Year()]
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	h.reg.Versions.Bump("acme", "P")
	return h
}

func TestYearlyComparison(t *testing.T) {
	h := comparisonFixture(t)
	reader := h.token("acme", "read")

	st, body, _ := h.do("GET", "/v1/sites/P/yearly-elec-energies-comparisons?years=2022,2021", reader, "")
	if st != http.StatusOK {
		t.Fatalf("%d %s", st, body)
	}
	t.Logf("%s", body)
	var items []map[string]any
	if err := json.Unmarshal(body, &items); err != nil || len(items) != 2 {
		t.Fatalf("body %s: %v", body, err)
	}
	// 2022 vs 2021, the order asked: 1,440 vs 1,200 kWh → +20.00 %; 288 + 146 = 434 vs
	// 240 + 146 = 386 EUR → 48 / 386 = +12.44 %; degree days 365 × (18 − 8) = 3650 vs
	// 365 × (18 − 10) = 2920 → +25.00 %: colder and higher.
	want2022 := `{"currentYear":{"year":"2022","beginMonth":"01","endMonth":"12","fromDate":"2022-01-01","toDate":"2022-12-31",` +
		`"consumption":{"energy":1440000,"cost":434,"energiesByTariffHeading":{"BASE":1440000},"costsByTariffHeading":{"BASE":288}}},` +
		`"previousYear":{"year":"2021","beginMonth":"01","endMonth":"12","fromDate":"2021-01-01","toDate":"2021-12-31",` +
		`"consumption":{"energy":1200000,"cost":386,"energiesByTariffHeading":{"BASE":1200000},"costsByTariffHeading":{"BASE":240}}},` +
		`"energyDifferenceRate":20,"costDifferenceRate":12.44,"weatherImpactMessageCode":"COLDER_WEATHER_HIGHER_CONSO",` +
		`"weatherImpactParameters":{"degreeDaysCurrentYear":3650,"degreeDaysPreviousYear":2920,"degreeDaysDifferenceRate":25}}`
	var want map[string]any
	if err := json.Unmarshal([]byte(want2022), &want); err != nil {
		t.Fatal(err)
	}
	if d := jsonDiff("", items[0], want); d != "" {
		t.Errorf("2022 item: %s", d)
	}
	// 2021 vs 2020: no data in 2020: energy and cost null, both rates present and null, no
	// weather members.
	prev := items[1]["previousYear"].(map[string]any)["consumption"].(map[string]any)
	if v, ok := prev["energy"]; !ok || v != nil {
		t.Errorf("2020 energy %v (present %v), want null", v, ok)
	}
	if v, ok := prev["cost"]; !ok || v != nil {
		t.Errorf("2020 cost %v (present %v), want null", v, ok)
	}
	for _, k := range []string{"energyDifferenceRate", "costDifferenceRate"} {
		if v, ok := items[1][k]; !ok || v != nil {
			t.Errorf("2021 %s %v (present %v), want null", k, v, ok)
		}
	}
	for _, k := range []string{"weatherImpactMessageCode", "weatherImpactParameters"} {
		if _, ok := items[1][k]; ok {
			t.Errorf("2021 has %s, want it omitted", k)
		}
	}

	// The comparison's 2022 equals the consumption endpoint's answer for the same months.
	st, body, _ = h.do("GET", "/v2/sites/P/fluids/elec/consumptions?startTs=2022-01-01T00:00:00&endTs=2023-01-01T00:00:00", reader, "")
	if st != http.StatusOK {
		t.Fatalf("consumptions: %d %s", st, body)
	}
	var cons struct {
		Consumptions []struct {
			EnergyMeter struct{ Total float64 }
			Cost        struct{ Total float64 }
		}
	}
	if err := json.Unmarshal(body, &cons); err != nil || len(cons.Consumptions) != 1 {
		t.Fatalf("consumptions body %s: %v", body, err)
	}
	if c := cons.Consumptions[0]; c.EnergyMeter.Total != 1_440_000 || math.Abs(c.Cost.Total-434) > 1e-9 {
		t.Errorf("consumption endpoint 2022: %v Wh, %v EUR; comparison 1440000 Wh, 434 EUR", c.EnergyMeter.Total, c.Cost.Total)
	}

	// The parameter repeated works like the comma list.
	if st, body, _ = h.do("GET", "/v1/sites/P/yearly-elec-energies-comparisons?years=2022&years=2021", reader, ""); st != http.StatusOK || !strings.Contains(string(body), `"year":"2020"`) {
		t.Errorf("repeated years: %d %s", st, body)
	}
}

// jsonDiff describes the first differences between two decoded JSON values.
func jsonDiff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want an object", path, got)
		}
		var diffs []string
		for k := range w {
			if d := jsonDiff(path+"."+k, g[k], w[k]); d != "" {
				diffs = append(diffs, d)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: unexpected member", path, k))
			}
		}
		return strings.Join(diffs, "; ")
	case float64:
		if g, ok := got.(float64); !ok || math.Abs(g-w) > 1e-9 {
			return fmt.Sprintf("%s: got %v, want %v", path, got, w)
		}
	default:
		if got != want {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
	}
	return ""
}

func TestYearlyComparisonErrors(t *testing.T) {
	h := newHarness(t)
	if st, b, _ := h.do("PUT", "/v2/sites/P", h.admin, `{}`); st != http.StatusOK {
		t.Fatalf("PUT site: %d %s", st, b)
	}
	reader := h.token("acme", "read")
	paris, _ := time.LoadLocation("Europe/Paris")
	next := strconv.Itoa(time.Now().In(paris).Year() + 1)
	path := "/v1/sites/P/yearly-elec-energies-comparisons?years="
	cases := []struct {
		path, token string
		status      int
		code        string
		mentions    []string
	}{
		{"/v1/sites/P/yearly-elec-energies-comparisons", reader, 400, CodeInvalidParameter, []string{"years"}},
		{path + "22", reader, 400, CodeInvalidParameter, []string{"years", `"22"`, "yyyy"}},
		{path + "2022,abcd", reader, 400, CodeInvalidParameter, []string{"years", `"abcd"`}},
		{path + "2021,2022,2021", reader, 400, CodeInvalidParameter, []string{"years", `"2021"`, "twice"}},
		{path + next, reader, 400, CodeInvalidParameter, []string{"years", next, "future"}},
		{path + "2010,2011,2012,2013,2014,2015,2016,2017,2018,2019,2020", reader, 400, CodeInvalidParameter, []string{"years", "at most 10"}},
		{path + "1999", reader, 400, CodeInvalidParameter, []string{"years", "1999"}},
		{"/v1/sites/NOPE/yearly-elec-energies-comparisons?years=2022", reader, 404, CodeSiteNotFound, []string{"NOPE"}},
		{path + "2022", h.token("globex", "read"), 404, CodeSiteNotFound, []string{"P"}},
		{path + "2022", "", 401, CodeInvalidAuth, nil},
		{path + "2022", h.token("acme", "collect"), 403, CodeAccessDenied, []string{"read"}},
	}
	for _, c := range cases {
		st, b, hdr := h.do("GET", c.path, c.token, "")
		t.Logf("GET %s → %d %s", c.path, st, b)
		h.wantError(st, b, hdr, c.status, c.code, c.mentions...)
	}
	// A site without data, tariff or station still answers: nulls, empty maps, no weather.
	st, b, _ := h.do("GET", path+"2022", reader, "")
	if st != http.StatusOK || !strings.Contains(string(b), `"energy":null`) || !strings.Contains(string(b), `"energiesByTariffHeading":{}`) {
		t.Errorf("site without data: %d %s", st, b)
	}
}

// The comparison is cached like consumption answers: a repeated request is a HIT with the
// same bytes; an ingest for the site and a weather PUT of its station make the next one
// recompute with the new data.
func TestYearlyComparisonCache(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	paris, _ := time.LoadLocation("Europe/Paris")
	observations := func(year, temperature int) string {
		var obs []string
		for d := time.Date(year, 1, 1, 12, 0, 0, 0, paris); d.Year() == year; d = d.AddDate(0, 0, 1) {
			obs = append(obs, fmt.Sprintf(`{"date":%q,"temperature":%d,"wind":10,"cloudiness":4}`, d.Format(time.RFC3339), temperature))
		}
		return "[" + strings.Join(obs, ",") + "]"
	}
	for _, r := range []struct{ path, body string }{
		{"/v1/weather-stations/ST", `{"name":"Paris-Orly","latitude":48.72,"longitude":2.38}`},
		{"/v2/tariffs/T1", `{"option":"BASE","dialHeadings":{"1":"BASE","2":"BASE"},"prices":[{"validFrom":"2020-01-01","byHeading":{"BASE":0.2}}],"standingCharges":[{"validFrom":"2020-01-01","yearly":{"subscription":146}}]}`},
		{"/v2/sites/S1", `{"weatherStationId":"ST","tariffId":"T1"}`},
		{"/v1/weather-stations/ST/observations", observations(2021, 10)},
		{"/v1/weather-stations/ST/observations", observations(2022, 8)},
	} {
		if st, b, _ := h.do("PUT", r.path, h.admin, r.body); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", r.path, st, b)
		}
	}
	collector, reader := h.token("acme", "collect"), h.token("acme", "read")
	// Local midnights of January 1st 2021 and 2022: 2021 holds 1,000 + 500 Wh, 2022 nothing yet.
	h.ingestArchive(collector, smartIndexes("S1", "2020-12-31T23:00:00Z 1000 500", "2021-12-31T23:00:00Z 2000 1000"))

	const path = "/v1/sites/S1/yearly-elec-energies-comparisons?years=2022"
	get := func(wantCache string) map[string]any {
		t.Helper()
		st, body, hdr := h.do("GET", path, reader, "")
		if st != http.StatusOK || !cacheIs(hdr.Get("X-Cache"), wantCache) {
			t.Fatalf("GET: %d X-Cache %q, want %s: %s", st, hdr.Get("X-Cache"), wantCache, body)
		}
		var items []map[string]any
		if err := json.Unmarshal(body, &items); err != nil || len(items) != 1 {
			t.Fatalf("body %s: %v", body, err)
		}
		// The bytes the HTTP layer's own encoder wrote before answers were cached.
		var typed []comparison.YearComparison
		var encoded bytes.Buffer
		if err := json.Unmarshal(body, &typed); err != nil || huma.DefaultJSONFormat.Marshal(&encoded, typed) != nil || encoded.String() != string(body) {
			t.Errorf("answer %q, the default encoder writes %q (%v)", body, encoded.String(), err)
		}
		if wantCache == "HIT" {
			if _, first, _ := h.do("GET", path, reader, ""); string(first) != string(body) {
				t.Errorf("HIT answers %s then %s", body, first)
			}
		}
		return items[0]
	}
	energy := func(item map[string]any, year string) any {
		return item[year].(map[string]any)["consumption"].(map[string]any)["energy"]
	}

	item := get("MISS")
	if energy(item, "currentYear") != nil || energy(item, "previousYear") != 1500.0 || item["energyDifferenceRate"] != nil {
		t.Errorf("before the 2023 reading: 2022 %v Wh, 2021 %v Wh, rate %v; want null, 1500, null",
			energy(item, "currentYear"), energy(item, "previousYear"), item["energyDifferenceRate"])
	}
	get("HIT")

	// January 1st 2023: 2022 holds 2,000 + 1,000 Wh, +100 % on 2021; degree days 365 × 10 =
	// 3650 vs 365 × 8 = 2920, +25 %: colder and higher.
	h.ingestArchive(collector, smartIndexes("S1", "2022-12-31T23:00:00Z 4000 2000"))
	item = get("HIT") // computed again before the job was DONE
	if energy(item, "currentYear") != 3000.0 || item["energyDifferenceRate"] != 100.0 || item["weatherImpactMessageCode"] != "COLDER_WEATHER_HIGHER_CONSO" {
		t.Errorf("after the ingest: 2022 %v Wh, rate %v, weather %v; want 3000, 100, COLDER_WEATHER_HIGHER_CONSO",
			energy(item, "currentYear"), item["energyDifferenceRate"], item["weatherImpactMessageCode"])
	}
	get("HIT")

	// 2022 at 12 °C instead: 365 × 6 = 2190 vs 2920 degree days, −25 %: warmer and higher.
	if st, b, _ := h.do("PUT", "/v1/weather-stations/ST/observations", h.admin, observations(2022, 12)); st != http.StatusOK {
		t.Fatalf("PUT observations: %d %s", st, b)
	}
	item = get(eitherCache)
	params, _ := item["weatherImpactParameters"].(map[string]any)
	if item["weatherImpactMessageCode"] != "WARMER_WEATHER_HIGHER_CONSO" || params == nil || params["degreeDaysCurrentYear"] != 2190.0 || params["degreeDaysDifferenceRate"] != -25.0 {
		t.Errorf("after the weather PUT: %v %v; want WARMER_WEATHER_HIGHER_CONSO, 2190 degree days, -25 %%", item["weatherImpactMessageCode"], params)
	}
	get("HIT")
}
