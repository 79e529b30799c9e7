package apidocs

import (
	"bytes"
	"context"
	"encoding/json"
	"energy/query/advices"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"energy/ingest"
	"energy/schema"
	"energy/schema/registry"
)

// contractCase is one real request and the status the server must answer; breaks marks a
// request that violates a rule the committed description declares (the description must
// reject it too, so that clients generated from it know the rule).
type contractCase struct {
	op      string // operationId
	method  string
	path    string
	token   string
	ctype   string
	body    []byte
	want    int
	breaks  bool
	comment string
}

// contractDoc is a committed description with a router over it.
type contractDoc struct {
	doc    *openapi3.T
	router routers.Router
}

func loadContract(t *testing.T, file, serverURL string) contractDoc {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Clean(file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", file, err)
	}
	doc.Servers = openapi3.Servers{{URL: serverURL}} // the document's server is relative
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return contractDoc{doc: doc, router: r}
}

// TestContract replays real requests, a success and error classes for every operation of both
// listeners, through the server and validates every response (status, headers, body) against
// the committed OpenAPI descriptions; requests that break a declared rule must be refused by
// both the server and the description. An operation without cases fails the test by name.
func TestContract(t *testing.T) {
	jh := newJobsHarness(t, "", true, nil)
	h := jh.harness
	reader, collector := h.token("acme", "read"), h.token("acme", "collect")
	mainServer := h.srv
	adviceJobs := advices.NewService(h.db, advices.Config{})
	adviceToken := h.token("acme", "advices")
	adviceJob, err := adviceJobs.Submit(context.Background(), "acme", []byte(`[{"input": {"HOUSING_TYPE": "HOUSE"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	adviceHandler, _ := NewAdvice(Config{Registry: h.reg, Ready: h.db.Ping, Jobs: jh.jobs, Advices: adviceJobs})
	adviceServer := httptest.NewServer(adviceHandler)
	t.Cleanup(adviceServer.Close)

	// A store that does not answer: every storage-backed answer is 503.
	dead, err := clickhouse.Open(&clickhouse.Options{Addr: []string{"127.0.0.1:1"}, DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	deadDB := &schema.DB{Conn: dead, Name: "energy"}
	deadHandler, _ := NewMain(Config{Registry: registry.New(deadDB), Ready: deadDB.Ping, Jobs: &ingest.Service{}})
	deadServer := httptest.NewServer(deadHandler)
	t.Cleanup(deadServer.Close)

	// The resources the cases read.
	for _, put := range []struct{ path, body string }{
		{"/v1/weather-stations/07149", `{"name":"Paris-Orly","latitude":48.72,"longitude":2.38}`},
		{"/v1/weather-stations/07149/observations", `[{"date":"2024-01-01T12:00:00+01:00","temperature":3.2,"wind":12.5,"cloudiness":6}]`},
		{"/v2/tariffs/HPHC-2024", hphcTariffJSON},
		{"/v2/tariffs/GAS-2024", `{"option":"GAS","prices":[{"validFrom":"2024-01-01","byHeading":{"BASE":0.11}}],"standingCharges":[{"validFrom":"2024-01-01","yearly":{"subscription":250}}]}`},
		{"/v2/sites/S1", `{"timezone":"Europe/Paris","tariffId":"HPHC-2024","gasTariffId":"GAS-2024","weatherStationId":"07149","siteCustomerId":"C-1","personCustomerId":"P-1"}`},
	} {
		if st, b, _ := h.do(http.MethodPut, put.path, h.admin, put.body); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", put.path, st, b)
		}
	}
	// A gas-heated site with a year of daily readings on its station's weather: a fitted model.
	budget := newBudgetSite(t, h)
	for _, put := range []struct{ path, body string }{
		{"/v2/tariffs/GAS-1", `{"option":"GAS","prices":[{"validFrom":"2000-01-01","byHeading":{"BASE":0.1}}]}`},
		{"/v2/sites/GASSITE", `{"weatherStationId":"ST","gasTariffId":"GAS-1","heatingFluid":"GAS"}`},
	} {
		if st, b, _ := h.do(http.MethodPut, put.path, h.admin, put.body); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", put.path, st, b)
		}
	}
	budget.gasReadings(t, h, "GASSITE")
	// A day of load curve of S1 that a tariff simulation prices.
	paris, _ := time.LoadLocation("Europe/Paris")
	var points [][]any
	for p := time.Date(2023, 6, 1, 0, 0, 0, 0, paris); p.Before(time.Date(2023, 6, 2, 0, 0, 0, 0, paris)); p = p.Add(30 * time.Minute) {
		points = append(points, []any{"acme", "S1", "PDL1", p.UTC(), p.Add(30 * time.Minute).UTC(), p.UTC(), int64(800), uint8(0), time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), "j"})
	}
	h.insertRows("INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)", points...)
	archive := tarGz(t, "indexes.json", `{"smartElecIndexes":[{"siteId":"S1","podId":"PDL-1","nature":"MKT_SMART_DISTRIBUTOR","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T04:00:00Z","value":{"1":100}}],`+
		`"cyclicGasIndexes":[{"siteId":"S1","podId":"GAS-1","nature":"MKT_CYCLIC_DISTRIBUTOR","ts":"2023-12-31T23:00:00Z","generationTs":"2024-01-03T00:00:00Z","value":100,"unit":"m3","conversionFactors":{"kWh":11.2}},`+
		`{"siteId":"S1","podId":"GAS-1","nature":"MKT_CYCLIC_DISTRIBUTOR","ts":"2024-01-01T23:00:00Z","generationTs":"2024-01-03T00:00:00Z","value":112,"unit":"m3","conversionFactors":{"kWh":11.2}}]}`)
	jobLink := jh.submit(h.admin, "a.tar.gz", archive)
	jobID := jobLink[strings.LastIndex(jobLink, "/")+1:]
	jh.waitFinal(h.admin, jobID)
	// A target of S1, read and updated by the cases.
	const targetBody = `{"beginDate":"2024-01-01T00:00:00Z","endDate":"2025-01-01T00:00:00Z","type":"ELEC","unit":"KWH","targetValue":5000,"name":"yearly"}`
	st, b, _ := h.do(http.MethodPost, "/v2/sites/S1/targets", h.admin, targetBody)
	var created struct {
		TargetID string `json:"targetId"`
	}
	if st != http.StatusCreated || json.Unmarshal(b, &created) != nil || created.TargetID == "" {
		t.Fatalf("POST target: %d %s", st, b)
	}
	target := "/v2/sites/S1/targets/" + created.TargetID
	const unknownTarget = "/v2/sites/S1/targets/6f1c2b1e-1d7a-4a57-9a0e-3c1f8f0b6d2a"
	formType, form := formBody(t, "file", "a.tar.gz", archive)
	notMultipartType, notMultipart := "text/plain", []byte("not an archive")
	tooLarge := make([]byte, ingest.MaxArchiveBytes+1)
	bigType, big := formBody(t, "file", "big.tar.gz", tooLarge)

	const consumption = "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS"
	const gasConsumption = "/v2/sites/S1/fluids/gas/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS"
	const schedule = `{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"},{"offset":1380,"temperature":"ECO"}]}`
	const jsonType = "application/json"
	// Two sites to erase: one erased here (its erasure is read by the cases), one by a case.
	for _, site := range []string{"ERASED", "ERASE-ME"} {
		if st, b, _ := h.do(http.MethodPut, "/v2/sites/"+site, h.admin, `{}`); st != http.StatusOK {
			t.Fatalf("PUT site %s: %d %s", site, st, b)
		}
	}
	st, erased, _ := h.do(http.MethodDelete, "/v2/sites/ERASED", h.admin, "")
	var erasedLink struct {
		Links SelfLinks `json:"_links"`
	}
	if err := json.Unmarshal(erased, &erasedLink); st != http.StatusAccepted || err != nil {
		t.Fatalf("DELETE site ERASED: %d %s", st, erased)
	}
	erasurePath := strings.TrimPrefix(erasedLink.Links.Self.Href, h.srv.URL)
	cases := []contractCase{
		{op: "healthz", method: "GET", path: "/healthz", want: 200},
		{op: "readyz", method: "GET", path: "/readyz", want: 200},

		{op: "get-heating-schedule", method: "GET", path: "/v1/sites/S1/heating-schedule", token: reader, want: 200},
		{op: "get-heating-schedule", method: "GET", path: "/v1/sites/NOPE/heating-schedule", token: reader, want: 404},
		{op: "get-heating-schedule", method: "GET", path: "/v1/sites/S1/heating-schedule", token: collector, want: 403},
		{op: "put-heating-schedule", method: "PUT", path: "/v1/sites/S1/heating-schedule", token: h.admin, ctype: jsonType, body: []byte(schedule), want: 200},
		{op: "put-heating-schedule", method: "PUT", path: "/v1/sites/S1/heating-schedule", token: h.admin, ctype: jsonType, body: []byte(`{"temperatures":{"ECO":16}}`), want: 400},
		{op: "put-heating-schedule", method: "PUT", path: "/v1/sites/S1/heating-schedule", token: reader, ctype: jsonType, body: []byte(schedule), want: 403},

		{op: "get-budget-matrix", method: "GET", path: "/v1/sites/GASSITE/budget/matrix", token: reader, want: 200},
		{op: "get-budget-matrix", method: "GET", path: "/v1/sites/S1/budget/matrix", token: reader, want: 422, comment: "no heating fluid: INSUFFICIENT_DATA"},
		{op: "get-budget-matrix", method: "GET", path: "/v1/sites/NOPE/budget/matrix", token: reader, want: 404},
		{op: "get-heating-budget", method: "GET", path: "/v1/sites/GASSITE/budget/heating", token: reader, want: 200},
		{op: "get-heating-budget", method: "GET", path: "/v1/sites/S1/budget/heating", token: reader, want: 422, comment: "no heating fluid: INSUFFICIENT_DATA"},
		{op: "get-heating-budget", method: "GET", path: "/v1/sites/NOPE/budget/heating", token: reader, want: 404},

		{op: "get-site-weathers", method: "GET", path: "/v1/sites/S1/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-02T00:00:00.000%2B0100", token: reader, want: 200},
		{op: "get-site-weathers", method: "GET", path: "/v1/sites/S1/weathers?beginDate=2024-01-01&endDate=2024-01-02T00:00:00.000%2B0100", token: reader, want: 400, comment: "beginDate without time"},
		{op: "get-site-weathers", method: "GET", path: "/v1/sites/S1/weathers?endDate=2024-01-02T00:00:00.000%2B0100", token: reader, want: 400, breaks: true, comment: "beginDate missing"},
		{op: "get-site-weathers", method: "GET", path: "/v1/sites/NOPE/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-02T00:00:00.000%2B0100", token: reader, want: 404},

		{op: "get-site-yearly-elec-energies-comparisons", method: "GET", path: "/v1/sites/S1/yearly-elec-energies-comparisons?years=2024", token: reader, want: 200},
		{op: "get-site-yearly-elec-energies-comparisons", method: "GET", path: "/v1/sites/S1/yearly-elec-energies-comparisons?years=abc", token: reader, want: 400},
		{op: "get-site-yearly-elec-energies-comparisons", method: "GET", path: "/v1/sites/S1/yearly-elec-energies-comparisons?years=2024", token: "", want: 401},

		{op: "get-weather-station", method: "GET", path: "/v1/weather-stations/07149", token: h.admin, want: 200},
		{op: "get-weather-station", method: "GET", path: "/v1/weather-stations/NOPE", token: h.admin, want: 404},
		{op: "get-weather-station", method: "GET", path: "/v1/weather-stations/07149", token: reader, want: 403},
		{op: "put-weather-station", method: "PUT", path: "/v1/weather-stations/ORLY", token: h.admin, ctype: jsonType, body: []byte(`{"name":"Orly","latitude":48.7,"longitude":2.4}`), want: 200},
		{op: "put-weather-station", method: "PUT", path: "/v1/weather-stations/ORLY", token: h.admin, ctype: jsonType, body: []byte(`{"name":"Orly","latitude":"north"}`), want: 400, breaks: true, comment: "latitude not a number"},
		{op: "put-weather-station", method: "PUT", path: "/v1/weather-stations/" + strings.Repeat("7", 129), token: h.admin, ctype: jsonType, body: []byte(`{"name":"Orly","latitude":48.7,"longitude":2.4}`), want: 400, breaks: true, comment: "stationId longer than 128"},
		{op: "get-weather-observations", method: "GET", path: "/v1/weather-stations/07149/observations?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-03T00:00:00.000%2B0100", token: h.admin, want: 200},
		{op: "get-weather-observations", method: "GET", path: "/v1/weather-stations/NOPE/observations?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-03T00:00:00.000%2B0100", token: h.admin, want: 404},
		{op: "put-weather-observations", method: "PUT", path: "/v1/weather-stations/07149/observations", token: h.admin, ctype: jsonType, body: []byte(`[{"date":"2024-01-02T12:00:00+01:00","temperature":4.1,"wind":3,"cloudiness":2}]`), want: 200},
		{op: "put-weather-observations", method: "PUT", path: "/v1/weather-stations/07149/observations", token: h.admin, ctype: jsonType, body: []byte(`{"date":"x"}`), want: 400, breaks: true, comment: "not an array"},

		{op: "submit-archive", method: "POST", path: "/v2/indexes-collect-jobs", token: collector, ctype: formType, body: form, want: 200},
		{op: "submit-archive", method: "POST", path: "/v2/indexes-collect-jobs", token: collector, ctype: notMultipartType, body: notMultipart, want: 400},
		{op: "submit-archive", method: "POST", path: "/v2/indexes-collect-jobs", token: collector, ctype: bigType, body: big, want: 413},
		{op: "submit-archive", method: "POST", path: "/v2/indexes-collect-jobs", token: reader, ctype: formType, body: form, want: 403},
		{op: "get-job", method: "GET", path: "/v2/indexes-collect-jobs/" + jobID, token: reader, want: 200},
		{op: "get-job", method: "GET", path: "/v2/indexes-collect-jobs/00000000-0000-0000-0000-000000000000", token: reader, want: 404},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs", token: collector, want: 200},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs?size=0", token: collector, want: 400, breaks: true, comment: "size below 1"},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs?state=LOST", token: collector, want: 400, breaks: true, comment: "state not in the enum"},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs?beginTs=2024-01-01T00:00:00Z&endTs=2024-03-01T00:00:00Z", token: collector, want: 400, comment: "PERIOD_TOO_LONG"},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs", token: "etk_0123456789abcdef_unknown", want: 401},

		{op: "put-day-colour-calendar", method: "PUT", path: "/v1/day-colour-calendars/TEMPO", token: h.admin, ctype: jsonType, body: []byte(`{"name":"Tempo","dayStartsAt":"06:00"}`), want: 200},
		{op: "put-day-colour-calendar", method: "PUT", path: "/v1/day-colour-calendars/TEMPO", token: h.admin, ctype: jsonType, body: []byte(`{"name":"Tempo","dayStartsAt":"6h"}`), want: 400, comment: "dayStartsAt not HH:MM"},
		{op: "get-day-colour-calendar", method: "GET", path: "/v1/day-colour-calendars/TEMPO", token: h.admin, want: 200},
		{op: "get-day-colour-calendar", method: "GET", path: "/v1/day-colour-calendars/NOPE", token: h.admin, want: 404},
		{op: "put-day-colours", method: "PUT", path: "/v1/day-colour-calendars/TEMPO/days", token: h.admin, ctype: jsonType, body: []byte(`[{"date":"2023-06-01","colour":"BLUE"}]`), want: 200},
		{op: "put-day-colours", method: "PUT", path: "/v1/day-colour-calendars/TEMPO/days", token: h.admin, ctype: jsonType, body: []byte(`[{"date":"2023-06-01","colour":"PINK"}]`), want: 400, comment: "unknown colour"},
		{op: "get-day-colours", method: "GET", path: "/v1/day-colour-calendars/TEMPO/days?from=2023-06-01&to=2023-07-01", token: h.admin, want: 200},
		{op: "get-day-colours", method: "GET", path: "/v1/day-colour-calendars/TEMPO/days?from=June&to=2023-07-01", token: h.admin, want: 400, comment: "from not a date"},
		{op: "get-site-elec-max-powers", method: "GET", path: "/v2/sites/S1/fluids/elec/max-powers?startTs=2023-06-01T00:00:00&endTs=2023-07-01T00:00:00&stepUnit=DAYS", token: reader, want: 200},
		{op: "get-site-elec-max-powers", method: "GET", path: "/v2/sites/S1/fluids/elec/max-powers?startTs=2023-06-01T00:00:00&endTs=2023-07-01T00:00:00&stepUnit=HOURS", token: reader, want: 400, breaks: true, comment: "stepUnit not in the enum"},
		{op: "get-site-elec-max-powers", method: "GET", path: "/v2/sites/NOPE/fluids/elec/max-powers?startTs=2023-06-01T00:00:00&endTs=2023-07-01T00:00:00", token: reader, want: 404},
		{op: "get-site-elec-tariff-simulations", method: "GET", path: "/v2/sites/S1/fluids/elec/tariff-simulations?startTs=2023-06-01T00:00:00&endTs=2023-06-02T00:00:00&tariffIds=HPHC-2024", token: reader, want: 200},
		{op: "get-site-elec-tariff-simulations", method: "GET", path: "/v2/sites/S1/fluids/elec/tariff-simulations?startTs=2023-06-01T00:00:00&endTs=2023-06-02T00:00:00&tariffIds=GAS-2024", token: reader, want: 400, comment: "a GAS tariff"},
		{op: "get-site-elec-tariff-simulations", method: "GET", path: "/v2/sites/S1/fluids/elec/tariff-simulations?startTs=2023-07-01T00:00:00&endTs=2023-07-02T00:00:00&tariffIds=HPHC-2024", token: reader, want: 422, comment: "no data: INSUFFICIENT_DATA"},
		{op: "get-site-elec-tariff-simulations", method: "GET", path: "/v2/sites/NOPE/fluids/elec/tariff-simulations?startTs=2023-06-01T00:00:00&endTs=2023-06-02T00:00:00&tariffIds=HPHC-2024", token: reader, want: 404},
		{op: "get-site-elec-consumptions", method: "GET", path: consumption, token: reader, want: 200},
		{op: "get-site-elec-consumptions", method: "GET", path: consumption + "&stepValue=0", token: reader, want: 400, breaks: true, comment: "stepValue below 1"},
		{op: "get-site-elec-consumptions", method: "GET", path: consumption + "&indexStrategy=SOMETIMES", token: reader, want: 400, breaks: true, comment: "indexStrategy not in the enum"},
		{op: "get-site-elec-consumptions", method: "GET", path: strings.Replace(consumption, "S1", "NOPE", 1), token: reader, want: 404},
		{op: "get-site-gas-consumptions", method: "GET", path: gasConsumption + "&options=withCarbonFootprint,withGlobalConsumption", token: reader, want: 200},
		{op: "get-site-gas-consumptions", method: "GET", path: gasConsumption + "&stepValue=1001", token: reader, want: 400, breaks: true, comment: "stepValue above 1000"},
		{op: "get-site-gas-consumptions", method: "GET", path: strings.Replace(gasConsumption, "DAYS", "WEEKS", 1), token: reader, want: 400, breaks: true, comment: "stepUnit not in the enum"},
		{op: "get-site-gas-consumptions", method: "GET", path: strings.Replace(gasConsumption, "2024-01-03", "2023-12-03", 1), token: reader, want: 400, comment: "endTs before startTs"},
		{op: "get-site-gas-consumptions", method: "GET", path: strings.Replace(gasConsumption, "S1", "NOPE", 1), token: reader, want: 404},
		{op: "get-site-gas-consumptions", method: "GET", path: gasConsumption, token: collector, want: 403},
		{op: "get-site", method: "GET", path: "/v2/sites/S1", token: reader, want: 200},
		{op: "get-site", method: "GET", path: "/v2/sites/NOPE", token: reader, want: 404},
		{op: "erase-site", method: "DELETE", path: "/v2/sites/ERASE-ME", token: h.admin, want: 202},
		{op: "erase-site", method: "DELETE", path: "/v2/sites/NOPE", token: h.admin, want: 404},
		{op: "erase-site", method: "DELETE", path: "/v2/sites/S1", token: reader, want: 403},
		{op: "get-site-erasure", method: "GET", path: erasurePath, token: h.admin, want: 200},
		{op: "get-site-erasure", method: "GET", path: "/v2/site-erasures/NOPE", token: h.admin, want: 404},
		{op: "export-site", method: "GET", path: "/v2/sites/S1/export?startTs=2024-01-01T00:00:00Z", token: h.admin, want: 200},
		{op: "export-site", method: "GET", path: "/v2/sites/S1/export?startTs=yesterday", token: h.admin, want: 400},
		{op: "export-site", method: "GET", path: "/v2/sites/NOPE/export", token: h.admin, want: 404},
		{op: "put-site", method: "PUT", path: "/v2/sites/S2", token: h.admin, ctype: jsonType, body: []byte(`{"timezone":"Europe/Paris"}`), want: 200},
		{op: "put-site", method: "PUT", path: "/v2/sites/S2", token: h.admin, ctype: jsonType, body: []byte(`{"heatingFluid":"COAL"}`), want: 400, breaks: true, comment: "heatingFluid not in the enum"},
		{op: "put-site", method: "PUT", path: "/v2/sites/-S2", token: h.admin, ctype: jsonType, body: []byte(`{}`), want: 400, breaks: true, comment: "siteId not starting with a letter or digit"},
		{op: "put-site", method: "PUT", path: "/v2/sites/" + strings.Repeat("S", 129), token: h.admin, ctype: jsonType, body: []byte(`{}`), want: 400, breaks: true, comment: "siteId longer than 128"},
		{op: "put-site", method: "PUT", path: "/v2/sites/S2", token: h.admin, ctype: jsonType, body: []byte(`{"tariffId":"NOPE"}`), want: 400},
		{op: "put-site", method: "PUT", path: "/v2/sites/S2", token: reader, ctype: jsonType, body: []byte(`{}`), want: 403},
		{op: "create-target", method: "POST", path: "/v2/sites/S1/targets", token: h.admin, ctype: jsonType, body: []byte(targetBody), want: 201},
		{op: "create-target", method: "POST", path: "/v2/sites/S1/targets", token: h.admin, ctype: jsonType,
			body: []byte(strings.Replace(targetBody, "2025-01-01", "2023-01-01", 1)), want: 400, comment: "endDate before beginDate"},
		{op: "create-target", method: "POST", path: "/v2/sites/S1/targets", token: reader, ctype: jsonType, body: []byte(targetBody), want: 403},
		{op: "list-targets", method: "GET", path: "/v2/sites/S1/targets", token: reader, want: 200},
		{op: "list-targets", method: "GET", path: "/v2/sites/NOPE/targets", token: reader, want: 404},
		{op: "get-target", method: "GET", path: target, token: reader, want: 200},
		{op: "get-target", method: "GET", path: unknownTarget, token: reader, want: 404},
		{op: "update-target", method: "PUT", path: target, token: h.admin, ctype: jsonType, body: []byte(strings.Replace(targetBody, "5000", "6000", 1)), want: 200},
		{op: "update-target", method: "PUT", path: unknownTarget, token: h.admin, ctype: jsonType, body: []byte(targetBody), want: 404},
		{op: "list-target-notifications", method: "GET", path: target + "/notifications", token: reader, want: 200},
		{op: "list-target-notifications", method: "GET", path: unknownTarget + "/notifications", token: reader, want: 404},
		{op: "get-tariff", method: "GET", path: "/v2/tariffs/HPHC-2024", token: h.admin, want: 200},
		{op: "get-tariff", method: "GET", path: "/v2/tariffs/NOPE", token: h.admin, want: 404},
		{op: "put-tariff", method: "PUT", path: "/v2/tariffs/T2", token: h.admin, ctype: jsonType, body: []byte(hphcTariffJSON), want: 200},
		{op: "put-tariff", method: "PUT", path: "/v2/tariffs/T2", token: h.admin, ctype: jsonType, body: []byte(strings.Replace(hphcTariffJSON, `"HPHC"`, `"EJP"`, 1)), want: 400, breaks: true, comment: "option not in the enum"},
		{op: "put-tariff", method: "PUT", path: "/v2/tariffs/T%202", token: h.admin, ctype: jsonType, body: []byte(hphcTariffJSON), want: 400, breaks: true, comment: "tariffId with a space"},
		{op: "put-tariff", method: "PUT", path: "/v2/tariffs/T2", token: h.admin, ctype: jsonType, body: bytes.Repeat([]byte(" "), 2<<20), want: 413},
	}

	mainDoc := loadContract(t, "openapi.yaml", mainServer.URL)
	adviceDoc := loadContract(t, "openapi-advice.yaml", adviceServer.URL)
	covered := map[string]map[string]bool{} // operationId → status classes seen ("2xx", "4xx")
	for _, c := range cases {
		checkContractCase(t, mainDoc, mainServer.URL, c)
		if covered[c.op] == nil {
			covered[c.op] = map[string]bool{}
		}
		covered[c.op][strconv.Itoa(c.want/100)+"xx"] = true
	}
	// The recommendation listener: its own operations, same rules.
	adviceCases := []contractCase{
		{op: "healthz", method: "GET", path: "/healthz", want: 200},
		{op: "readyz", method: "GET", path: "/readyz", want: 200},
		{op: "submit-advice-job", method: "POST", path: "/v1/jobs/advices", token: adviceToken, ctype: "application/json",
			body: []byte(`[{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21}}]`), want: 200},
		{op: "submit-advice-job", method: "POST", path: "/v1/jobs/advices", token: adviceToken, ctype: "application/json",
			body: []byte(`[{"input": {"HOUSING_SURFACE": -2}}]`), want: 400, breaks: true},
		{op: "get-advice-job", method: "GET", path: "/v1/jobs/advices/" + adviceJob.ID, token: adviceToken, want: 200},
		{op: "get-advice-job", method: "GET", path: "/v1/jobs/advices/5d0c8e0a-3b8e-4f7e-9a41-2f1f6f0c9b7d", token: adviceToken, want: 404},
	}
	adviceCovered := map[string]map[string]bool{}
	for _, c := range adviceCases {
		checkContractCase(t, adviceDoc, adviceServer.URL, c)
		if adviceCovered[c.op] == nil {
			adviceCovered[c.op] = map[string]bool{}
		}
		adviceCovered[c.op][strconv.Itoa(c.want/100)+"xx"] = true
	}
	// A store that does not answer: 503 with Retry-After, as documented.
	deadDoc := loadContract(t, "openapi.yaml", deadServer.URL)
	for _, c := range []contractCase{
		{op: "readyz", method: "GET", path: "/readyz", want: 503},
		{op: "list-jobs", method: "GET", path: "/v2/smt-jobs", token: reader, want: 503},
	} {
		checkContractCase(t, deadDoc, deadServer.URL, c)
	}
	// Routing errors are answered outside any operation: their body is still the error model.
	for _, c := range []struct{ method, path string }{{"DELETE", "/v2/smt-jobs"}, {"GET", "/v9/nothing"}} {
		checkRoutingError(t, mainDoc, mainServer.URL, c.method, c.path)
		checkRoutingError(t, adviceDoc, adviceServer.URL, c.method, c.path)
	}

	// Every operation of both descriptions has a success and a client-error case, except the
	// probes, which take no input and have no client error. pendingSuccess lists operations
	// whose success case is still to write, with what it needs: keep it empty.
	pendingSuccess := map[string]string{}
	for op, needs := range pendingSuccess {
		t.Logf("%s: no success case yet (needs %s)", op, needs)
	}
	var missing []string
	for name, d := range map[string]struct {
		doc     contractDoc
		covered map[string]map[string]bool
	}{"openapi.yaml": {mainDoc, covered}, "openapi-advice.yaml": {adviceDoc, adviceCovered}} {
		for path, item := range d.doc.doc.Paths.Map() {
			for method, op := range item.Operations() {
				need := []string{"2xx", "4xx"}
				if op.OperationID == "healthz" || op.OperationID == "readyz" {
					need = need[:1]
				}
				for _, class := range need {
					if class == "2xx" && pendingSuccess[op.OperationID] != "" {
						continue
					}
					if !d.covered[op.OperationID][class] {
						missing = append(missing, name+": "+method+" "+path+" ("+op.OperationID+") has no "+class+" case")
					}
				}
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("add cases to TestContract (apidocs/contract_test.go) for:\n%s", strings.Join(missing, "\n"))
	}
}

// checkContractCase sends c and validates the exchange against the description.
func checkContractCase(t *testing.T, d contractDoc, base string, c contractCase) {
	t.Helper()
	name := c.method + " " + c.path
	if c.comment != "" {
		name += " (" + c.comment + ")"
	}
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.ctype != "" {
		req.Header.Set("Content-Type", c.ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != c.want {
		t.Errorf("%s: status %d, want %d; body %.300s", name, resp.StatusCode, c.want, body)
		return
	}

	// The same request, as the description sees it.
	vreq, _ := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	vreq.Header = req.Header.Clone()
	route, params, err := d.router.FindRoute(vreq)
	if err != nil {
		t.Errorf("%s: not in the description: %v", name, err)
		return
	}
	if route.Operation.OperationID != c.op {
		t.Errorf("%s: is operation %s in the description, the case says %s", name, route.Operation.OperationID, c.op)
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	switch {
	case c.breaks && reqErr == nil:
		t.Errorf("%s: the server refuses it (%d) but the description accepts it: declare the rule", name, resp.StatusCode)
	case !c.breaks && c.want < 300 && reqErr != nil:
		t.Errorf("%s: the server accepts it but the description refuses it: %v", name, reqErr)
	}

	// The response: its status documented explicitly, its headers and body as described.
	if route.Operation.Responses.Value(strconv.Itoa(resp.StatusCode)) == nil {
		t.Errorf("%s: status %d is not documented by %s", name, resp.StatusCode, c.op)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s: response %d does not match the description: %v\nbody %.300s", name, resp.StatusCode, err, body)
	}
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s: 503 without Retry-After", name)
	}
}

// checkRoutingError checks that a 404 or 405 outside any operation has the error body the
// descriptions define.
func checkRoutingError(t *testing.T, d contractDoc, base, method, path string) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("%s %s: %d, want 404 or 405", method, path, resp.StatusCode)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s %s: body %s: %v", method, path, body, err)
	}
	if err := d.doc.Components.Schemas["APIError"].Value.VisitJSON(v); err != nil {
		t.Errorf("%s %s: body %s is not the APIError schema: %v", method, path, body, err)
	}
	if !slices.Contains([]string{"NOT_FOUND", "METHOD_NOT_ALLOWED"}, v.(map[string]any)["errorCode"].(string)) {
		t.Errorf("%s %s: errorCode %v", method, path, v)
	}
}

// The identifier rule declared on the PUT operations is the one the store enforces.
func TestDeclaredIDRuleIsTheStoreRule(t *testing.T) {
	for _, v := range []any{putSiteInput{}, putTariffInput{}, putStationInput{}} {
		f := reflect.TypeOf(v).Field(0)
		if f.Tag.Get("pattern") != registry.IDPattern || f.Tag.Get("maxLength") != "128" {
			t.Errorf("%T.%s declares pattern %q maxLength %q; the store's rule is %q, 128", v, f.Name, f.Tag.Get("pattern"), f.Tag.Get("maxLength"), registry.IDPattern)
		}
	}
}
