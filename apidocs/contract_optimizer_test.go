package apidocs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// insertRows appends rows to a table with an explicit column list, as the intake does.
func (h *harness) insertRows(sql string, rows ...[]any) {
	h.t.Helper()
	b, err := h.db.Conn.PrepareBatch(context.Background(), sql)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, r := range rows {
		if err := b.Append(r...); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		h.t.Fatal(err)
	}
}

func TestDayColourCalendarsPutAndGet(t *testing.T) {
	h := newHarness(t)
	st, body, _ := h.do("PUT", "/v1/day-colour-calendars/TEMPO", h.admin, `{"name":"Tempo","dayStartsAt":"06:00"}`)
	if st != 200 || !sameJSON(body, `{"calendarId":"TEMPO","name":"Tempo","dayStartsAt":"06:00"}`) {
		t.Fatalf("PUT calendar: %d %s", st, body)
	}
	st, body, hdr := h.do("PUT", "/v1/day-colour-calendars/TEMPO", h.admin, `{"name":"Tempo","dayStartsAt":"6h"}`)
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "dayStartsAt")
	st, body, hdr = h.do("PUT", "/v1/day-colour-calendars/TEMPO/days", h.admin, `[{"date":"2025-01-06","colour":"BLUE"},{"date":"2025-01-07","colour":"PINK"}]`)
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "body[1].colour", "PINK")
	st, body, hdr = h.do("PUT", "/v1/day-colour-calendars/NOPE/days", h.admin, `[{"date":"2025-01-06","colour":"BLUE"}]`)
	h.wantError(st, body, hdr, http.StatusNotFound, "NOT_FOUND", "NOPE")
	st, body, _ = h.do("PUT", "/v1/day-colour-calendars/TEMPO/days", h.admin,
		`[{"date":"2025-01-07","colour":"WHITE"},{"date":"2025-01-06","colour":"BLUE"},{"date":"2025-01-07","colour":"RED"}]`)
	if st != 200 || !sameJSON(body, `{"calendarId":"TEMPO","stored":3}`) {
		t.Fatalf("PUT days: %d %s", st, body)
	}
	// The rejected body stored nothing; a date sent twice keeps its last colour.
	st, body, _ = h.do("GET", "/v1/day-colour-calendars/TEMPO/days?from=2025-01-01&to=2025-02-01", h.admin, "")
	if st != 200 || !sameJSON(body, `[{"date":"2025-01-06","colour":"BLUE"},{"date":"2025-01-07","colour":"RED"}]`) {
		t.Fatalf("GET days: %d %s", st, body)
	}
	// A TEMPO tariff names the calendar; it must exist, and only TEMPO has one.
	tempo := `{"option":"TEMPO","dialHeadings":{"1":"HCJB","2":"HPJB"},"defaultHeading":"HPJB","dayColourCalendarId":"%s",` +
		`"timeOfUse":[{"from":"22:00","to":"06:00","heading":"HCJB","dayColour":"BLUE"}],"prices":[{"validFrom":"2025-01-01","byHeading":{"HCJB":0.13,"HPJB":0.16}}]}`
	st, body, hdr = h.do("PUT", "/v2/tariffs/T1", h.admin, fmt.Sprintf(tempo, "NOPE"))
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "dayColourCalendarId", "NOPE")
	if st, body, _ = h.do("PUT", "/v2/tariffs/T1", h.admin, fmt.Sprintf(tempo, "TEMPO")); st != 200 || !strings.Contains(string(body), `"dayColour":"BLUE"`) {
		t.Fatalf("PUT TEMPO tariff: %d %s", st, body)
	}
	st, body, hdr = h.do("PUT", "/v2/tariffs/T2", h.admin, `{"option":"BASE","dialHeadings":{"1":"BASE"},"dayColourCalendarId":"TEMPO","prices":[{"validFrom":"2025-01-01","byHeading":{"BASE":0.2}}]}`)
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "dayColourCalendarId", "TEMPO")
}

// contractSite stores site S1 on BASE-6 (6 kVA, 0.20 EUR/kWh), tariffs BASE-9 (0.25 EUR/kWh)
// and GAS-1, daily max powers of 7,000 W (6 January 2025) and 5,000 W (7 January) and two days
// of load curve at 1,000 W.
func contractSite(t *testing.T) *harness {
	h := newHarness(t)
	for id, body := range map[string]string{
		"BASE-6": `{"option":"BASE","dialHeadings":{"1":"BASE"},"subscribedPowerKva":6,"prices":[{"validFrom":"2025-01-01","byHeading":{"BASE":0.2}}]}`,
		"BASE-9": `{"option":"BASE","dialHeadings":{"1":"BASE"},"subscribedPowerKva":9,"prices":[{"validFrom":"2025-01-01","byHeading":{"BASE":0.25}}]}`,
		"GAS-1":  `{"option":"GAS","prices":[{"validFrom":"2025-01-01","byHeading":{"BASE":0.1}}]}`,
	} {
		if st, b, _ := h.do("PUT", "/v2/tariffs/"+id, h.admin, body); st != 200 {
			t.Fatalf("tariff %s: %d %s", id, st, b)
		}
	}
	if st, b, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{"tariffId":"BASE-6"}`); st != 200 {
		t.Fatalf("site: %d %s", st, b)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	day := func(d, hour int) time.Time { return time.Date(2025, 1, d, hour, 0, 0, 0, paris).UTC() }
	gen := day(20, 0)
	h.insertRows("INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)",
		[]any{"acme", "S1", "PDL1", day(6, 19), gen, int64(7000), "j"}, []any{"acme", "S1", "PDL1", day(7, 19), gen, int64(5000), "j"})
	var points [][]any
	for b := day(6, 0); b.Before(day(8, 0)); b = b.Add(30 * time.Minute) {
		points = append(points, []any{"acme", "S1", "PDL1", b, b.Add(30 * time.Minute), gen, int64(1000), uint8(0), time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC), "j"})
	}
	h.insertRows("INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)", points...)
	return h
}

func TestMaxPowersEndpoint(t *testing.T) {
	h := contractSite(t)
	reader := h.token("acme", "read")
	path := "/v2/sites/S1/fluids/elec/max-powers?startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&stepUnit=DAYS"
	want := `{"period":{"startTime":"2025-01-06T00:00:00+01:00","endTime":"2025-01-08T00:00:00+01:00"},"step":"P1D","unit":"W","subscribedPowerKva":6,"maxPowers":[` +
		`{"period":{"startTime":"2025-01-06T00:00:00+01:00","endTime":"2025-01-07T00:00:00+01:00"},"value":7000,"date":"2025-01-06","days":1,"overrunDays":1,"status":"COMPLETE"},` +
		`{"period":{"startTime":"2025-01-07T00:00:00+01:00","endTime":"2025-01-08T00:00:00+01:00"},"value":5000,"date":"2025-01-07","days":1,"overrunDays":0,"status":"COMPLETE"}]}`
	st, body, hdr := h.do("GET", path, reader, "")
	if st != 200 || !sameJSON(body, want) || hdr.Get("X-Cache") != "MISS" {
		t.Fatalf("max powers: %d %s %s", st, hdr.Get("X-Cache"), body)
	}
	if _, _, hdr = h.do("GET", path, reader, ""); hdr.Get("X-Cache") != "HIT" {
		t.Errorf("second read: X-Cache %q, want HIT", hdr.Get("X-Cache"))
	}
	// The site's tariff raised to 9 kVA: the cached answer is not served again.
	if st, b, _ := h.do("PUT", "/v2/tariffs/BASE-6", h.admin, `{"option":"BASE","dialHeadings":{"1":"BASE"},"subscribedPowerKva":9,"prices":[{"validFrom":"2025-01-01","byHeading":{"BASE":0.2}}]}`); st != 200 {
		t.Fatalf("tariff: %d %s", st, b)
	}
	st, body, hdr = h.do("GET", path, reader, "")
	if st != 200 || !cacheIs(hdr.Get("X-Cache"), eitherCache) || !strings.Contains(string(body), `"subscribedPowerKva":9`) || strings.Contains(string(body), `"overrunDays":1`) {
		t.Errorf("after the tariff change: %d %s %s", st, hdr.Get("X-Cache"), body)
	}
	for q, mention := range map[string]string{
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&stepUnit=HOURS":   "stepUnit",
		"startTs=2025-01-06&endTs=2025-01-08T00:00:00":                           "startTs",
		"startTs=2025-01-08T00:00:00&endTs=2025-01-06T00:00:00":                  "endTs",
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&stepValue=2":      "stepValue",
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&subscribed=FALSE": "subscribed",
	} {
		st, body, hdr := h.do("GET", "/v2/sites/S1/fluids/elec/max-powers?"+q, reader, "")
		if mention == "subscribed" { // unknown query parameters are ignored, as everywhere
			if st != 200 {
				t.Errorf("%s: %d %s", q, st, body)
			}
			continue
		}
		h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", mention)
	}
	st, body, hdr = h.do("GET", "/v2/sites/NOPE/fluids/elec/max-powers?startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00", reader, "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")
}

func TestTariffSimulationEndpoint(t *testing.T) {
	h := contractSite(t)
	reader := h.token("acme", "read")
	path := "/v2/sites/S1/fluids/elec/tariff-simulations?startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=BASE-9,BASE-6"
	// 48 kWh of load curve (no indexes): BASE-6 9.60 EUR but 7,000 W on the 6th is above 6 kVA;
	// BASE-9 12.00 EUR, 2.40 more (25 %).
	want := `{"period":{"startTime":"2025-01-06T00:00:00+01:00","endTime":"2025-01-08T00:00:00+01:00"},"energySource":"LOAD_CURVE","quality":100,"reference":"BASE-6",` +
		`"maxPower":{"value":7000,"date":"2025-01-06"},"simulations":[` +
		`{"tariffId":"BASE-6","option":"BASE","subscribedPowerKva":6,"status":"INSUFFICIENT_POWER","energyMeter":{"total":48000,"byTariffHeading":{"BASE":48000}},` +
		`"cost":{"total":9.6,"energy":9.6,"standingCharge":0,"byTariffHeading":{"BASE":9.6}},"overrunDays":1,"differenceVsReference":{"cost":0,"rate":0},"cheapest":false},` +
		`{"tariffId":"BASE-9","option":"BASE","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":48000,"byTariffHeading":{"BASE":48000}},` +
		`"cost":{"total":12,"energy":12,"standingCharge":0,"byTariffHeading":{"BASE":12}},"overrunDays":0,"differenceVsReference":{"cost":2.4,"rate":25},"cheapest":true}]}`
	st, body, hdr := h.do("GET", path, reader, "")
	if st != 200 || !sameJSON(body, want) || hdr.Get("X-Cache") != "MISS" {
		t.Fatalf("simulation: %d %s\n got %s\nwant %s", st, hdr.Get("X-Cache"), body, want)
	}
	if _, _, hdr = h.do("GET", path, reader, ""); hdr.Get("X-Cache") != "HIT" {
		t.Errorf("second read: X-Cache %q, want HIT", hdr.Get("X-Cache"))
	}
	// A new reading of the site (what ingest announces) invalidates the answer; polled, it is
	// computed again before the change is counted (the key holds the site's version), so the
	// next read hits it.
	h.reg.Versions.Bump("acme", "S1")
	if _, b, hdr := h.do("GET", path, reader, ""); hdr.Get("X-Cache") != "HIT" || !sameJSON(b, want) {
		t.Errorf("after a new reading: X-Cache %q, %s; want HIT with the same answer", hdr.Get("X-Cache"), b)
	}
	many := strings.Repeat("BASE-9,", 20) + "T21"
	for i := range 20 {
		many = strings.Replace(many, "BASE-9,", fmt.Sprintf("T%d,", i), 1)
	}
	for q, mention := range map[string][]string{
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=NOPE":    {"tariffIds", "NOPE"},
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=GAS-1":   {"tariffIds", "GAS-1", "GAS"},
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=" + many: {"tariffIds", "20"},
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=,":       {"tariffIds"},
		"startTs=2025-01-01T00:00:00&endTs=2026-01-03T00:00:00&tariffIds=BASE-9":  {"endTs", "366"},
		"startTs=2025-01-06T00:00:00&endTs=2025-01-08&tariffIds=BASE-9":           {"endTs"},
	} {
		st, body, hdr := h.do("GET", "/v2/sites/S1/fluids/elec/tariff-simulations?"+q, reader, "")
		h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", mention...)
	}
	// 366 days is allowed (2024 is a leap year: 2024-01-01 + 366 days = 2025-01-01); no data then: 422.
	st, body, hdr = h.do("GET", "/v2/sites/S1/fluids/elec/tariff-simulations?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&tariffIds=BASE-9", reader, "")
	h.wantError(st, body, hdr, http.StatusUnprocessableEntity, "INSUFFICIENT_DATA", "0.00 %")
	st, body, hdr = h.do("GET", "/v2/sites/NOPE/fluids/elec/tariff-simulations?startTs=2025-01-06T00:00:00&endTs=2025-01-08T00:00:00&tariffIds=BASE-9", reader, "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")
	var res struct{ Simulations []json.RawMessage }
	if err := json.Unmarshal([]byte(want), &res); err != nil || len(res.Simulations) != 2 {
		t.Fatal("the expected answer is not valid JSON")
	}
}

// The max-power CSV has one row per step, each cell the JSON value of the same step.
func TestMaxPowersCSVMatchesJSON(t *testing.T) {
	h := contractSite(t)
	reader := h.token("acme", "read")
	// January 5 to 8 by days: the 5th has no reading (NO_DATA, empty cells), then 7,000 W above
	// the 6 kVA of BASE-6 and 5,000 W below it.
	path := "/v2/sites/S1/fluids/elec/max-powers?startTs=2025-01-05T00:00:00&endTs=2025-01-08T00:00:00&stepUnit=DAYS"
	st, b, _ := h.do("GET", path, reader, "")
	var answer struct {
		MaxPowers []struct {
			Period      struct{ StartTime, EndTime string }
			Value       *float64
			Date        *string
			Days        float64
			OverrunDays *float64
			Status      string
		}
	}
	if st != http.StatusOK || json.Unmarshal(b, &answer) != nil || len(answer.MaxPowers) != 3 {
		t.Fatalf("max powers JSON: %d %s", st, b)
	}
	header, rows := h.csvTable(reader, path)
	wantHeader := []string{"startTime", "endTime", "value", "date", "days", "overrunDays", "status"}
	if !slices.Equal(header, wantHeader) || len(rows) != len(answer.MaxPowers) {
		t.Fatalf("max powers CSV: header %v, %d rows for %d steps", header, len(rows), len(answer.MaxPowers))
	}
	for i, step := range answer.MaxPowers {
		where := fmt.Sprintf("max-power row %d", i+1)
		var date any
		if step.Date != nil {
			date = *step.Date
		}
		wantCell(t, where, "startTime", rows[i]["startTime"], step.Period.StartTime)
		wantCell(t, where, "endTime", rows[i]["endTime"], step.Period.EndTime)
		wantCell(t, where, "value", rows[i]["value"], step.Value)
		wantCell(t, where, "date", rows[i]["date"], date)
		wantCell(t, where, "days", rows[i]["days"], step.Days)
		wantCell(t, where, "overrunDays", rows[i]["overrunDays"], step.OverrunDays)
		wantCell(t, where, "status", rows[i]["status"], step.Status)
	}
	for i, want := range []map[string]string{
		{"startTime": "2025-01-05T00:00:00+01:00", "value": "", "date": "", "days": "0", "overrunDays": "0", "status": "NO_DATA"},
		{"startTime": "2025-01-06T00:00:00+01:00", "value": "7000", "date": "2025-01-06", "days": "1", "overrunDays": "1", "status": "COMPLETE"},
		{"startTime": "2025-01-07T00:00:00+01:00", "value": "5000", "date": "2025-01-07", "days": "1", "overrunDays": "0", "status": "COMPLETE"},
	} {
		for column, cell := range want {
			if rows[i][column] != cell {
				t.Errorf("max-power row %d %s: %q, want %q", i+1, column, rows[i][column], cell)
			}
		}
	}
}
