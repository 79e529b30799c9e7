package apidocs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"energy/query/advices"
	"energy/schema/registry"
)

// newAdviceHarness is the recommendation service (advice listener) of a fresh database with
// its jobs running; the harness's own server stays the main service of the same database.
func newAdviceHarness(t *testing.T) (*harness, *harness) {
	t.Helper()
	main := newHarness(t)
	return main, adviceListener(t, main, true)
}

// adviceListener serves the advice API on main's database; started false leaves the job
// workers stopped, as in a process that died before computing its jobs.
func adviceListener(t *testing.T, main *harness, started bool) *harness {
	t.Helper()
	svc := advices.NewService(main.db, advices.Config{Workers: 2})
	if started {
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	}
	h, _ := NewAdvice(Config{Registry: main.reg, Ready: main.db.Ping, Advices: svc})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &harness{t: t, db: main.db, reg: main.reg, srv: srv, admin: main.admin}
}

// adviceJob is GET /v1/jobs/advices/{jobId} as a client reads it.
type adviceJob struct {
	JobID     string `json:"jobId"`
	Status    string `json:"status"`
	CreatedTs string `json:"createdTs"`
	UpdatedTs string `json:"updatedTs"`
	Result    []struct {
		Context map[string]any `json:"context"`
		Advices map[string]struct {
			SavingsKwh, SavingsEur, Rate, Basis float64
		} `json:"advices"`
		Ignored map[string]string `json:"ignored"`
	} `json:"result"`
}

// submitAdvices posts a job and returns its id, checking the submission answer.
func submitAdvices(h *harness, token, body string) string {
	h.t.Helper()
	status, b, _ := h.do(http.MethodPost, "/v1/jobs/advices", token, body)
	if status != http.StatusOK {
		h.t.Fatalf("submit: %d %s", status, b)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		h.t.Fatal(err)
	}
	if got["status"] != "CREATED" || fmt.Sprint(got["result"]) != "[]" || len(fmt.Sprint(got["jobId"])) != 36 {
		h.t.Fatalf("submission answer %s, want {jobId, status CREATED, result []}", b)
	}
	return got["jobId"].(string)
}

// waitAdviceJob polls a job until DONE or ERROR.
func waitAdviceJob(h *harness, token, id string) adviceJob {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, b, _ := h.do(http.MethodGet, "/v1/jobs/advices/"+id, token, "")
		if status != http.StatusOK {
			h.t.Fatalf("get job: %d %s", status, b)
		}
		var j adviceJob
		if err := json.Unmarshal(b, &j); err != nil {
			h.t.Fatal(err)
		}
		if j.Status == "DONE" || j.Status == "ERROR" {
			return j
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("job %s still %s after 20 s", id, j.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const workedExample = `[{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false, "POOL": true}}]`

// TestAdviceJobOverHTTP: the catalog's example through the advice listener, to the cent.
func TestAdviceJobOverHTTP(t *testing.T) {
	_, h := newAdviceHarness(t)
	token := h.token("acme", "advices")
	id := submitAdvices(h, token, workedExample)
	j := waitAdviceJob(h, token, id)
	if j.Status != "DONE" || j.JobID != id || len(j.Result) != 1 {
		t.Fatalf("job %+v, want DONE with one result", j)
	}
	for _, ts := range []string{j.CreatedTs, j.UpdatedTs} {
		if _, err := time.Parse("2006-01-02T15:04:05Z", ts); err != nil {
			t.Errorf("timestamp %q is not Timestamp-Z", ts)
		}
	}
	r := j.Result[0]
	sp, th := r.Advices["LOWER_HEATING_SETPOINT"], r.Advices["PROGRAMMABLE_THERMOSTAT"]
	if sp.Rate != 0.14 || sp.SavingsKwh != 1680 || sp.SavingsEur != 184.80 || sp.Basis != 12000 ||
		th.Rate != 0.10 || th.SavingsKwh != 1200 || th.SavingsEur != 132.00 {
		t.Errorf("advices %+v", r.Advices)
	}
	if r.Context["totalSavingsKwh"] != 2712.0 || r.Context["totalSavingsEur"] != 298.32 ||
		r.Context["heatingFluid"] != "GAS" || fmt.Sprint(r.Context["unknownInputs"]) != "[POOL]" {
		t.Errorf("context %v", r.Context)
	}
	if r.Ignored["ROOF_INSULATION"] != "MISSING_INPUT:HOUSING_TYPE" {
		t.Errorf("ignored %v", r.Ignored)
	}
}

// TestAdviceHundredElementsOverHTTP: 100 elements in one job, each answered in order.
func TestAdviceHundredElementsOverHTTP(t *testing.T) {
	_, h := newAdviceHarness(t)
	var elems []string
	for i := range 100 {
		elems = append(elems, fmt.Sprintf(`{"input": {"HOUSING_WATER_HEATER": "ELEC_TANK", "HOUSING_OCCUPANTS": %d}}`, i%20+1))
	}
	id := submitAdvices(h, h.admin, "["+strings.Join(elems, ",")+"]")
	j := waitAdviceJob(h, h.admin, id)
	if j.Status != "DONE" || len(j.Result) != 100 {
		t.Fatalf("job %s with %d results, want DONE with 100", j.Status, len(j.Result))
	}
	for i, r := range j.Result {
		// 800 kWh × occupants × 0.6, at 0.2516 EUR/kWh
		kwh := 480.0 * float64(i%20+1)
		if got := r.Advices["HEAT_PUMP_WATER_HEATER"]; got.SavingsKwh != kwh || got.SavingsEur != float64(int64(kwh*25.16+0.5))/100 {
			t.Fatalf("result[%d] %+v, want %v kWh", i, got, kwh)
		}
	}
}

// TestAdviceJobRecoveredOverHTTP: a job accepted by a process that stopped before computing it
// is computed by the next process.
func TestAdviceJobRecoveredOverHTTP(t *testing.T) {
	main := newHarness(t)
	dead := adviceListener(t, main, false)
	id := submitAdvices(dead, main.admin, workedExample)
	if j := waitCreated(dead, main.admin, id); j.Status != "CREATED" {
		t.Fatalf("job without workers is %s", j.Status)
	}
	next := adviceListener(t, main, true)
	if j := waitAdviceJob(next, main.admin, id); j.Status != "DONE" || j.Result[0].Context["totalSavingsEur"] != 298.32 {
		t.Errorf("recovered job %s, result %+v", j.Status, j.Result)
	}
}

func waitCreated(h *harness, token, id string) adviceJob {
	h.t.Helper()
	status, b, _ := h.do(http.MethodGet, "/v1/jobs/advices/"+id, token, "")
	var j adviceJob
	if status != http.StatusOK || json.Unmarshal(b, &j) != nil {
		h.t.Fatalf("get job: %d %s", status, b)
	}
	return j
}

// TestAdviceErrorsOverHTTP: bad values name the element and key; other tenants, unknown ids,
// missing scopes; nothing stored on a 400.
func TestAdviceErrorsOverHTTP(t *testing.T) {
	_, h := newAdviceHarness(t)
	token := h.token("acme", "advices")
	for _, c := range []struct{ body, mention string }{
		{`[{"input": {"HOUSING_SURFACE": -2}}]`, "[0].input.HOUSING_SURFACE: must be a number > 0"},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {"HOUSING_OCCUPANTS": "2"}}]`, "[1].input.HOUSING_OCCUPANTS: must be an integer from 1 to 20"},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {"HOUSING_TYPE": "HOUSE"}}, {"nope": 1}]`, "[2].nope"},
		{`[{"input": {"FOO": 1}}]`, "[0].input: holds no known input key"},
		{`[]`, "request body: must hold 1 to 100 elements"},
		{`{"input": {}}`, "request body: must be a JSON array"},
		{`[{"input": {"SITE_ID": "home"}}]`, "[0].input.SITE_ID"},
	} {
		status, b, hdr := h.do(http.MethodPost, "/v1/jobs/advices", token, c.body)
		h.wantError(status, b, hdr, http.StatusBadRequest, CodeInvalidParameter, c.mention)
	}
	var n uint64
	if err := h.db.Conn.QueryRow(context.Background(), "SELECT count() FROM advice_jobs").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d jobs stored after refused bodies (%v), want 0", n, err)
	}

	id := submitAdvices(h, token, workedExample)
	other := h.token("globex", "advices")
	for _, c := range []struct{ token, id string }{{other, id}, {token, "5d0c8e0a-3b8e-4f7e-9a41-2f1f6f0c9b7d"}, {token, "nope"}} {
		status, b, hdr := h.do(http.MethodGet, "/v1/jobs/advices/"+c.id, c.token, "")
		h.wantError(status, b, hdr, http.StatusNotFound, CodeJobNotFound)
	}
	reader := h.token("acme", string(registry.ScopeRead))
	status, b, hdr := h.do(http.MethodPost, "/v1/jobs/advices", reader, workedExample)
	h.wantError(status, b, hdr, http.StatusForbidden, CodeAccessDenied, "advices")
	status, b, hdr = h.do(http.MethodGet, "/v1/jobs/advices/"+id, "", "")
	h.wantError(status, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
}

// TestAdviceRoutesOnTheirListenerOnly: each listener answers 404 for the other's routes, and
// the advice listener describes its own API.
func TestAdviceRoutesOnTheirListenerOnly(t *testing.T) {
	main, adv := newAdviceHarness(t)
	status, b, hdr := main.do(http.MethodPost, "/v1/jobs/advices", main.admin, workedExample)
	main.wantError(status, b, hdr, http.StatusNotFound, CodeNotFound)
	status, b, hdr = main.do(http.MethodGet, "/v1/jobs/advices/5d0c8e0a-3b8e-4f7e-9a41-2f1f6f0c9b7d", main.admin, "")
	main.wantError(status, b, hdr, http.StatusNotFound, CodeNotFound)
	status, b, hdr = adv.do(http.MethodGet, "/v2/smt-jobs", adv.admin, "")
	adv.wantError(status, b, hdr, http.StatusNotFound, CodeNotFound)

	status, b, _ = adv.do(http.MethodGet, "/openapi.json", "", "")
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("advice /openapi.json: %d", status)
	}
	if doc.Paths["/v1/jobs/advices"] == nil || doc.Paths["/v1/jobs/advices/{jobId}"] == nil || doc.Paths["/v2/smt-jobs"] != nil {
		t.Errorf("advice description paths %v", keys(doc.Paths))
	}
	if status, _, _ = adv.do(http.MethodGet, "/docs", "", ""); status != http.StatusOK {
		t.Errorf("advice /docs: %d", status)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
