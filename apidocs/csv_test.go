package apidocs

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// getCSV sends a GET with Accept: text/csv; it returns status, body and headers.
func (h *harness) getCSV(token, path string) (int, []byte, http.Header) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.srv.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/csv")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(h.t, resp), resp.Header
}

// csvTable GETs a CSV answer and reads its header and its rows as column → cell.
func (h *harness) csvTable(token, path string) ([]string, []map[string]string) {
	t := h.t
	t.Helper()
	status, b, hdr := h.getCSV(token, path)
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV answer: %d %s %.300s", status, hdr.Get("Content-Type"), b)
	}
	if !strings.Contains(string(b), "\r\n") {
		t.Errorf("CSV lines do not end with CRLF (RFC 4180)")
	}
	records, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(records) == 0 {
		t.Fatalf("not CSV (%v): %.300s", err, b)
	}
	var rows []map[string]string
	for _, r := range records[1:] {
		row := map[string]string{}
		for i, name := range records[0] {
			row[name] = r[i]
		}
		rows = append(rows, row)
	}
	return records[0], rows
}

// wantCell checks a CSV cell against the JSON value: numbers equal as float64, absent values
// empty, strings and booleans as written.
func wantCell(t *testing.T, where, column, cell string, want any) {
	t.Helper()
	switch w := want.(type) {
	case nil:
		if cell != "" {
			t.Errorf("%s %s: %q, want an empty cell", where, column, cell)
		}
	case float64:
		got, err := strconv.ParseFloat(cell, 64)
		if err != nil || got != w || strings.ContainsAny(cell, "eE,") {
			t.Errorf("%s %s: %q, want %v written with a decimal point", where, column, cell, w)
		}
	case *float64:
		if w == nil {
			wantCell(t, where, column, cell, nil)
		} else {
			wantCell(t, where, column, cell, *w)
		}
	case bool:
		wantCell(t, where, column, cell, strconv.FormatBool(w))
	case string:
		if cell != w {
			t.Errorf("%s %s: %q, want %q", where, column, cell, w)
		}
	default:
		t.Fatalf("%s %s: no comparison for %T", where, column, want)
	}
}

// wantConsumptionRows checks every row of a consumption CSV against the JSON items, value by
// value, and that the CSV has no column the JSON does not explain.
func wantConsumptionRows(t *testing.T, header []string, rows []map[string]string, items []consumptionItem) {
	t.Helper()
	if len(rows) != len(items) {
		t.Fatalf("%d CSV rows, %d JSON items", len(rows), len(items))
	}
	checked := map[string]bool{}
	for i, c := range items {
		row, where := rows[i], fmt.Sprintf("row %d (%s)", i+1, c.Period["startTime"])
		cell := func(column string, want any) {
			checked[column] = true
			wantCell(t, where, column, row[column], want)
		}
		cell("startTime", c.Period["startTime"])
		cell("endTime", c.Period["endTime"])
		cell("energy", c.EnergyMeter.Total)
		for k, v := range c.EnergyMeter.ByTariffHeading {
			cell("energy_"+k, v)
		}
		if c.Cost != nil {
			cell("cost", c.Cost.Total)
			cell("standingCharge", c.Cost.StandingCharge)
			for k, v := range c.Cost.ByTariffHeading {
				cell("cost_"+k, v)
			}
			for k, v := range c.Cost.StandingChargeByComponents {
				cell("standingCharge_"+k, v)
			}
		} else {
			cell("cost", nil)
		}
		if c.CarbonFootprint != nil {
			cell("carbonFootprint", c.CarbonFootprint.Total)
			cell("carbonFootprint_coefficient", c.CarbonFootprint.Coefficient)
		}
		if c.Ratios != nil {
			for k, v := range c.Ratios.ByTariffHeading {
				cell("ratio_"+k, v)
			}
			for k, v := range c.Ratios.ByTariffHeadingGroup {
				cell("ratioGroup_"+k, v)
			}
		}
		cell("quality", c.Quality)
		cell("errorFlags", strings.Join(c.ErrorFlags, ";"))
		cell("indexNatures", strings.Join(c.IndexNatures, ";"))
		cell("status", c.Status)
		cell("nature", c.Nature)
		cell("aggregated", c.Aggregated)
		cell("usingLoadCurve", c.UsingLoadCurve)
	}
	for _, column := range header {
		if !checked[column] && !slices.Contains([]string{"volume", "volume_unit", "carbonFootprint", "carbonFootprint_coefficient"}, column) {
			t.Errorf("CSV column %s matches nothing of the JSON answer", column)
		}
	}
}

// A DST day by HOURS (23 rows) and a year by DAYS (365 rows), as CSV, checked value by value
// against the JSON answers of the same requests; errors stay JSON.
func TestConsumptionCSVMatchesJSON(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	st, b, _ := h.do("PUT", "/v2/tariffs/HPHC", h.admin, `{"option":"HPHC","dialHeadings":{"1":"HC","2":"HP"},
		"headingGroups":{"HC":"OFFPEAK","HP":"PEAK"},"timeOfUse":[{"from":"22:00","to":"06:00","heading":"HC"}],"defaultHeading":"HP",
		"prices":[{"validFrom":"2020-01-01","byHeading":{"HC":0.2068,"HP":0.27}}],
		"standingCharges":[{"validFrom":"2020-01-01","yearly":{"subscription":151.20,"cta":21.35}}],"carbonCoefficient":0.06}`)
	if st != http.StatusOK {
		t.Fatalf("PUT tariff: %d %s", st, b)
	}
	h.putSite(h.admin, "S1", `{"tariffId":"HPHC"}`)

	// Daily indexes at the local midnights of 2023 and Jan 1 2024: day d adds HC 100 + 10·(d mod 7)
	// and HP 300 + 25·(d mod 11) Wh.
	paris, _ := time.LoadLocation("Europe/Paris")
	var readings []string
	hc, hp := 10000, 50000
	for d, day := 0, time.Date(2023, 1, 1, 0, 0, 0, 0, paris); !day.After(time.Date(2024, 1, 1, 0, 0, 0, 0, paris)); d, day = d+1, day.AddDate(0, 0, 1) {
		readings = append(readings, fmt.Sprintf("%s %d %d", day.UTC().Format(time.RFC3339), hc, hp))
		hc, hp = hc+100+10*(d%7), hp+300+25*(d%11)
	}
	indexes := smartIndexes("S1", readings...)
	// The load curve of Sunday March 31 2024 (23 hours in Paris): hour i averages 400 + 37·i W.
	var points []string
	for i, at := 0, time.Date(2024, 3, 31, 0, 0, 0, 0, paris); at.Before(time.Date(2024, 4, 1, 0, 0, 0, 0, paris)); i, at = i+1, at.Add(time.Hour) {
		points = append(points, fmt.Sprintf(`{"beginTs":%q,"value":%d,"reliability":0}`, at.Format(time.RFC3339), 400+37*i))
	}
	curve := `{"siteId":"S1","podId":"PDL-S1","meterReadingDate":"2024-03-31","generationTs":"2024-04-01T02:00:00+02:00","step":"PT60M","values":[` +
		strings.Join(points, ",") + `]}`
	file := strings.TrimSuffix(indexes, "}") + `,"loadCurves":[` + curve + `]}`
	h.ingestArchive(h.token("acme", "collect"), file)

	reader := h.token("acme", "read")
	for _, c := range []struct {
		name, query string
		rows        int
	}{
		{"DST day by HOURS", "?startTs=2024-03-31T00:00:00&endTs=2024-04-01T00:00:00&stepUnit=HOURS", 23},
		{"2023 by DAYS", "?startTs=2023-01-01T00:00:00&endTs=2024-01-01T00:00:00&stepUnit=DAYS&options=withCarbonFootprint,withRatioByTariffHeading", 365},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, _ := h.consumption(reader, consPath+c.query, "MISS")
			header, rows := h.csvTable(reader, consPath+c.query)
			if len(rows) != c.rows || len(body.Consumptions) != c.rows {
				t.Fatalf("%d CSV rows and %d JSON items, want %d", len(rows), len(body.Consumptions), c.rows)
			}
			withData := 0
			for _, it := range body.Consumptions {
				if it.EnergyMeter.Total != nil && it.EnergyMeter.ByTariffHeading["HC"]+it.EnergyMeter.ByTariffHeading["HP"] > 0 {
					withData++
				}
			}
			if withData < c.rows-1 {
				t.Fatalf("only %d of %d steps have energy: the data set does not exercise the columns", withData, c.rows)
			}
			for _, column := range []string{"startTime", "energy", "energy_HC", "energy_HP", "cost", "cost_HC", "cost_HP", "standingCharge_subscription"} {
				if !slices.Contains(header, column) {
					t.Errorf("CSV header %v lacks %s", header, column)
				}
			}
			wantConsumptionRows(t, header, rows, body.Consumptions)
		})
	}
	// 23 hours: 00:00 and 01:00 at +01:00, then 03:00 at +02:00.
	_, rows := h.csvTable(reader, consPath+"?startTs=2024-03-31T00:00:00&endTs=2024-04-01T00:00:00&stepUnit=HOURS")
	if rows[1]["startTime"] != "2024-03-31T01:00:00+01:00" || rows[2]["startTime"] != "2024-03-31T03:00:00+02:00" || rows[22]["endTime"] != "2024-04-01T00:00:00+02:00" {
		t.Errorf("DST day rows: %s, %s … %s", rows[1]["startTime"], rows[2]["startTime"], rows[22]["endTime"])
	}

	// Errors stay JSON.
	st, b, hdr := h.getCSV(reader, consPath+"?startTs=2024-03-31T00:00:00&endTs=2024-04-01T00:00:00&stepUnit=WEEKS")
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "stepUnit")
	st, b, hdr = h.getCSV(reader, "/v2/sites/NOPE/fluids/elec/consumptions?startTs=2024-03-31T00:00:00&endTs=2024-04-01T00:00:00")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "NOPE")
	st, b, hdr = h.getCSV("", consPath+"?startTs=2024-03-31T00:00:00&endTs=2024-04-01T00:00:00")
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)

	// An answer that is not a list ignores Accept: text/csv and stays JSON.
	st, b, hdr = h.getCSV(reader, "/v2/sites/S1")
	var site map[string]any
	if st != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || json.Unmarshal(b, &site) != nil {
		t.Errorf("GET site with Accept: text/csv: %d %s %.200s, want its JSON", st, hdr.Get("Content-Type"), b)
	}
}

// The weather and the job listing as CSV: one row per item, the same values as their JSON.
func TestWeatherAndJobsCSV(t *testing.T) {
	h := weatherFixture(t)
	query := "/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-03T00:00:00.000%2B0100"
	st, b, _ := h.do("GET", query, h.admin, "")
	if st != http.StatusOK {
		t.Fatalf("weather JSON: %d %s", st, b)
	}
	items := decodeWeather(t, b)
	header, rows := h.csvTable(h.admin, query)
	if !slices.Equal(header, []string{"date", "picto", "temperature", "wind", "cloudiness"}) || len(rows) != len(items) || len(items) != 3 {
		t.Fatalf("weather CSV: header %v, %d rows for %d items", header, len(rows), len(items))
	}
	for i, it := range items {
		where := fmt.Sprintf("weather row %d", i+1)
		wantCell(t, where, "date", rows[i]["date"], it.Date)
		wantCell(t, where, "picto", rows[i]["picto"], it.Picto)
		wantCell(t, where, "temperature", rows[i]["temperature"], it.Temperature)
		wantCell(t, where, "wind", rows[i]["wind"], it.Wind)
		wantCell(t, where, "cloudiness", rows[i]["cloudiness"], it.Cloudiness)
	}
	if rows[0]["date"] != "2024-01-01T00:00:00+01:00" || rows[0]["temperature"] != "3.2" {
		t.Errorf("weather row 1: %v", rows[0])
	}

	j := newJobsHarness(t, "", true, nil)
	collector := j.token("acme", "collect")
	j.ingestArchive(collector, smartIndexes("S1", "2023-12-31T23:00:00Z 1000 5000", "2024-01-01T23:00:00Z 1500 6000"))
	st, b, _ = j.do("GET", "/v2/smt-jobs", collector, "")
	var page struct {
		Embedded struct {
			Jobs []struct {
				ID      string `json:"id"`
				Archive string `json:"archive"`
				State   struct{ Current, TS string }
				Report  struct {
					Overview struct {
						Total int `json:"nbOperationsTotal"`
						OK    int `json:"nbOperationsOK"`
						KO    int `json:"nbOperationsKO"`
					}
				}
				Links struct{ Self struct{ Href string } } `json:"_links"`
			}
		} `json:"_embedded"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &page) != nil || len(page.Embedded.Jobs) != 1 {
		t.Fatalf("job listing JSON: %d %s", st, b)
	}
	_, rows = j.csvTable(collector, "/v2/smt-jobs")
	want := page.Embedded.Jobs[0]
	if len(rows) != 1 {
		t.Fatalf("job listing CSV: %d rows, want 1", len(rows))
	}
	r := rows[0]
	for column, value := range map[string]string{"id": want.ID, "archive": want.Archive, "state_current": "DONE", "state_ts": want.State.TS,
		"report_overview_nbOperationsTotal": "2", "report_overview_nbOperationsOK": "2", "report_overview_nbOperationsKO": "0",
		"report_error_code": "", "_links_self_href": want.Links.Self.Href} {
		wantCell(t, "job row", column, r[column], value)
	}
	if want.State.Current != "DONE" || want.Report.Overview.OK != 2 {
		t.Errorf("job JSON: %+v", want)
	}
	st, b, hdr := j.getCSV(collector, "/v2/smt-jobs?size=0")
	j.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "size")
}
