package apidocs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"energy/ingest"
	"energy/query/cache"
	"energy/query/consumption"
	"energy/query/targets"
	"energy/schema/chtest"
	"energy/schema/erasure"
	"energy/schema/registry"
)

// jobsHarness is a main service with the archive intake on a throwaway database and spool.
type jobsHarness struct {
	*harness
	jobs     *ingest.Service
	erasures *erasure.Service
	spool    string
	answers  *consumption.Cached // the consumption answers' cache (nil when the test gave another service)
}

// newJobsHarness starts the workers when start is set (otherwise jobs stay SUBMITTED).
func newJobsHarness(t *testing.T, publicURL string, start bool, edit func(*ingest.Config)) *jobsHarness {
	t.Helper()
	return newJobsHarnessAPI(t, publicURL, start, edit, Config{})
}

// newJobsHarnessAPI is newJobsHarness with the HTTP settings of api (its stores are filled in).
func newJobsHarnessAPI(t *testing.T, publicURL string, start bool, edit func(*ingest.Config), api Config) *jobsHarness {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	spool := filepath.Join(t.TempDir(), "spool")
	cfg := ingest.Config{DB: db, Registry: reg, SpoolDir: spool, Workers: 2, PollInterval: 10 * time.Millisecond, RetryDelay: 20 * time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	jobs, err := ingest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if start {
		if err := jobs.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		jobs.Stop(ctx)
	})
	answers, _ := api.Consumptions.(*consumption.Cached)
	if api.Consumptions == nil { // what NewMain makes by default, kept to look into its cache
		answers = consumption.NewCached(consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient), reg.Versions, cache.DefaultEntries, cache.DefaultBytes)
		api.Consumptions = answers
	}
	api.Registry, api.Ready, api.PublicURL, api.Jobs, api.Targets, api.Outbox = reg, db.Ping, publicURL, jobs, targets.NewStore(db), targets.NewOutbox(db)
	api.Erasures = erasure.New(db, reg, nil)
	api.Erasures.Archives = jobs
	ectx, stopErasures := context.WithCancel(context.Background())
	if err := api.Erasures.Start(ectx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopErasures(); api.Erasures.Wait() })
	h, _ := NewMain(api)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hs := &harness{t: t, db: db, reg: reg, srv: srv}
	hs.admin = hs.token("acme", "admin")
	for _, s := range []registry.Site{
		{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1"},
		{TenantID: "acme", SiteID: "S2"},
	} {
		if err := reg.PutSite(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return &jobsHarness{harness: hs, jobs: jobs, erasures: api.Erasures, spool: spool, answers: answers}
}

// tarGz builds a .tar.gz of name, body pairs.
func tarGz(t *testing.T, files ...string) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for i := 0; i+1 < len(files); i += 2 {
		if err := tw.WriteHeader(&tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[i+1]))
	}
	tw.Close()
	var gb bytes.Buffer
	zw := gzip.NewWriter(&gb)
	zw.Write(tb.Bytes())
	zw.Close()
	return gb.Bytes()
}

// formBody is a multipart body with one part: a file part when filename is set.
func formBody(t *testing.T, field, filename string, data []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	var pw io.Writer
	var err error
	if filename != "" {
		pw, err = w.CreateFormFile(field, filename)
	} else {
		pw, err = w.CreateFormField(field)
	}
	if err != nil {
		t.Fatal(err)
	}
	pw.Write(data)
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// post sends a raw body to the submission endpoint; headers are set as given ("Host" sets the Host).
func (h *jobsHarness) post(token, contentType string, body []byte, headers ...string) (int, []byte, http.Header) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/v2/indexes-collect-jobs", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(h.t, resp), resp.Header
}

// submit posts archive as the "file" part and returns the job link.
func (h *jobsHarness) submit(token, name string, archive []byte) string {
	h.t.Helper()
	ct, body := formBody(h.t, "file", name, archive)
	st, b, hdr := h.post(token, ct, body)
	if st != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		h.t.Fatalf("submit: %d %s %s", st, hdr.Get("Content-Type"), b)
	}
	var out struct {
		Links struct {
			Self struct{ Href string } `json:"self"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		h.t.Fatal(err)
	}
	return out.Links.Self.Href
}

var jobHrefPattern = regexp.MustCompile(`/v2/indexes-collect-jobs/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`)

func jobIDOf(t *testing.T, href string) string {
	t.Helper()
	m := jobHrefPattern.FindStringSubmatch(href)
	if m == nil {
		t.Fatalf("job link %q", href)
	}
	return m[1]
}

// jobJSON is a job detail as a client reads it.
type jobJSON struct {
	ID          string `json:"id"`
	Archive     string `json:"archive"`
	SubmittedTs string `json:"submittedTs"`
	State       struct {
		Current string `json:"current"`
		TS      string `json:"ts"`
		History []struct {
			Current string `json:"current"`
			TS      string `json:"ts"`
		} `json:"history"`
	} `json:"state"`
	Report struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Overview struct {
			Total int `json:"nbOperationsTotal"`
			OK    int `json:"nbOperationsOK"`
			KO    int `json:"nbOperationsKO"`
		} `json:"overview"`
		Files []ingest.FileReport `json:"files"`
	} `json:"report"`
	Links struct {
		Self struct{ Href string } `json:"self"`
	} `json:"_links"`
}

func (j jobJSON) history() []string {
	var out []string
	for _, x := range j.State.History {
		out = append(out, x.Current)
	}
	return out
}

// getJob reads a job by id.
func (h *jobsHarness) getJob(token, id string) jobJSON {
	h.t.Helper()
	st, b, _ := h.do("GET", "/v2/indexes-collect-jobs/"+id, token, "")
	if st != http.StatusOK {
		h.t.Fatalf("GET job %s: %d %s", id, st, b)
	}
	var j jobJSON
	if err := json.Unmarshal(b, &j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

// waitFinal polls the job until it is DONE, ERROR or TIMEOUT.
func (h *jobsHarness) waitFinal(token, id string) jobJSON {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j := h.getJob(token, id)
		if ingest.Final(j.State.Current) {
			return j
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("job %s still %s", id, j.State.Current)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *jobsHarness) rows(table string) uint64 {
	h.t.Helper()
	var n uint64
	if err := h.db.Conn.QueryRow(context.Background(), "SELECT count() FROM "+table+" FINAL").Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

func (h *jobsHarness) spoolFiles() int {
	h.t.Helper()
	entries, err := os.ReadDir(h.spool)
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	return len(entries)
}

// wantSpoolEmpty waits (5 s at most) for the spool to be empty: a job's archive is deleted
// just after its final state is recorded.
func (h *jobsHarness) wantSpoolEmpty() {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for h.spoolFiles() != 0 {
		if time.Now().After(deadline) {
			h.t.Fatalf("%d spool files left", h.spoolFiles())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// jobsFile: 5 operations (4 OK, 1 UNKNOWN_SITE), both identity variants; rows: 2 elec,
// 1 gas, 1 max power, 3 load-curve points.
const jobsFile = `{
  "cyclicGasIndexes": [{"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2024-01-31T23:00:00Z",
     "generationTs": "2024-02-01T06:00:00Z", "value": 12345, "unit": "m3", "conversionFactors": {"kWh": 11.2}}],
  "smartElecIndexes": [{"siteCustomerId": "C-1", "personCustomerId": "P-1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR",
     "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-01T04:00:00Z", "value": {"1": 100000, "2": 200000}}],
  "maxPowers": [
    {"siteId": "S2", "podId": "PDL-2", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000},
    {"siteId": "S9", "podId": "PDL-9", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000}],
  "loadCurves": [{"siteId": "S1", "podId": "PDL-1", "meterReadingDate": "2024-02-01", "generationTs": "2024-02-02T02:00:00+01:00",
     "step": "PT30M", "values": [
       {"beginTs": "2024-02-01T00:00:00+01:00", "value": 500, "reliability": 0},
       {"beginTs": "2024-02-01T00:30:00+01:00", "value": 700, "reliability": 1},
       {"endTs": "2024-02-01T01:30:00+01:00", "value": 650, "reliability": 0}]}]
}`

var timestampZPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)

func TestSubmitArchiveJobReportAndStoredRows(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	collect, read := h.token("acme", "collect"), h.token("acme", "read")
	href := h.submit(collect, "readings.tar.gz", tarGz(t, "readings.json", jobsFile, "notes.txt", "not json"))
	if !strings.HasPrefix(href, h.srv.URL+"/v2/indexes-collect-jobs/") {
		t.Fatalf("job link %q is not absolute on %s", href, h.srv.URL)
	}
	id := jobIDOf(t, href)
	j := h.waitFinal(read, id)
	if j.State.Current != ingest.StateDone || j.ID != id || j.Archive != "readings.tar.gz" || j.Links.Self.Href != href {
		t.Fatalf("job %+v", j)
	}
	if !reflect.DeepEqual(j.history(), []string{"SUBMITTED", "IN_PROGRESS", "DONE"}) || j.State.History[2].TS != j.State.TS {
		t.Fatalf("history %+v", j.State)
	}
	for _, ts := range []string{j.SubmittedTs, j.State.TS, j.State.History[0].TS} {
		if !timestampZPattern.MatchString(ts) {
			t.Errorf("timestamp %q is not Timestamp-Z", ts)
		}
	}
	if j.State.History[0].TS != j.SubmittedTs {
		t.Errorf("SUBMITTED at %s but submittedTs %s", j.State.History[0].TS, j.SubmittedTs)
	}
	if o := j.Report.Overview; o.Total != 5 || o.OK != 4 || o.KO != 1 || j.Report.Error != nil {
		t.Fatalf("report %+v", j.Report)
	}
	if len(j.Report.Files) != 2 || j.Report.Files[0].Name != "readings.json" || len(j.Report.Files[0].FailedOperations) != 1 ||
		j.Report.Files[0].FailedOperations[0].Errors[0].Code != "UNKNOWN_SITE" ||
		j.Report.Files[1].Error == nil || j.Report.Files[1].Error.Code != "INVALID_FILE_FORMAT" {
		t.Fatalf("files %+v", j.Report.Files)
	}
	// The raw body: no report.error member on a DONE job, failedOperations always an array.
	_, raw, _ := h.do("GET", "/v2/indexes-collect-jobs/"+id, collect, "")
	if bytes.Contains(raw, []byte(`"error":{"code"`)) && !bytes.Contains(raw, []byte(`"files"`)) || bytes.Contains(raw, []byte(`"failedOperations":null`)) {
		t.Errorf("detail body %s", raw)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(raw, &top)
	var report map[string]json.RawMessage
	json.Unmarshal(top["report"], &report)
	if _, ok := report["error"]; ok {
		t.Errorf("a DONE job has report.error: %s", top["report"])
	}
	for table, want := range map[string]uint64{"elec_indexes": 2, "gas_indexes": 1, "max_powers": 1, "load_curve_points": 3, "pods": 3} {
		if got := h.rows(table); got != want {
			t.Errorf("%s: %d rows (FINAL), want %d", table, got, want)
		}
	}
	h.wantSpoolEmpty()
}

func TestEveryJobStateOverHTTP(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	collect := h.token("acme", "collect")
	archive := tarGz(t, "readings.json", jobsFile)

	done := h.waitFinal(collect, jobIDOf(t, h.submit(collect, "a.tar.gz", archive)))
	errJob := h.waitFinal(collect, jobIDOf(t, h.submit(collect, "b.tar.gz", []byte("not a gzip file"))))
	if done.State.Current != "DONE" || errJob.State.Current != "ERROR" || errJob.Report.Error == nil ||
		errJob.Report.Error.Code != "INVALID_ARCHIVE_FORMAT" || errJob.Report.Error.Message == "" || len(errJob.Report.Files) != 0 {
		t.Fatalf("DONE %+v / ERROR %+v", done.State, errJob.Report)
	}

	// Jobs stay SUBMITTED while no worker runs; a deadline that has passed ends them in TIMEOUT.
	idle := newJobsHarness(t, "", false, func(c *ingest.Config) { c.Deadline = 300 * time.Millisecond })
	tok := idle.token("acme", "collect")
	id := jobIDOf(t, idle.submit(tok, "c.tar.gz", archive))
	if j := idle.getJob(tok, id); j.State.Current != "SUBMITTED" || !reflect.DeepEqual(j.history(), []string{"SUBMITTED"}) ||
		j.Report.Files == nil || len(j.Report.Files) != 0 {
		t.Fatalf("waiting job %+v", j)
	}
	time.Sleep(400 * time.Millisecond)
	if err := idle.jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	j := idle.waitFinal(tok, id)
	if j.State.Current != "TIMEOUT" || !reflect.DeepEqual(j.history(), []string{"SUBMITTED", "TIMEOUT"}) ||
		j.Report.Error == nil || j.Report.Error.Code != "TIMEOUT" {
		t.Fatalf("timed-out job %+v %+v", j.State, j.Report)
	}
	if idle.rows("elec_indexes") != 0 {
		t.Fatal("a TIMEOUT job stored rows")
	}
	idle.wantSpoolEmpty()
}

func TestSubmitLinkBase(t *testing.T) {
	archive := tarGz(t, "a.json", "{}")
	public := newJobsHarness(t, "https://energy.example.com/", false, nil)
	href := public.submit(public.token("acme", "collect"), "a.tar.gz", archive)
	if !strings.HasPrefix(href, "https://energy.example.com/v2/indexes-collect-jobs/") {
		t.Fatalf("with a public URL: %s", href)
	}
	h := newJobsHarness(t, "", false, nil)
	tok := h.token("acme", "collect")
	ct, body := formBody(t, "file", "a.tar.gz", archive)
	st, b, _ := h.post(tok, ct, body, "X-Forwarded-Proto", "https", "Host", "api.example.org:8443")
	if st != http.StatusOK || !regexp.MustCompile(`^\{"_links":\{"self":\{"href":"https://api\.example\.org:8443/v2/indexes-collect-jobs/[0-9a-f-]{36}"\}\}\}\s*$`).Match(b) {
		t.Fatalf("behind a proxy: %d %s", st, b)
	}
}

func TestSubmitSizeBoundaryOverHTTP(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	tok := h.token("acme", "collect")
	jobRows := func() uint64 {
		var n uint64
		if err := h.db.Conn.QueryRow(context.Background(), "SELECT count() FROM jobs FINAL").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	wantRefused := func(st int, b []byte, hdr http.Header, what string) {
		t.Helper()
		if st != http.StatusRequestEntityTooLarge || len(b) != 0 || hdr.Get("Content-Type") != "" {
			t.Fatalf("%s: %d %q (Content-Type %q), want 413 with an empty body", what, st, b, hdr.Get("Content-Type"))
		}
		if n := jobRows(); n != 0 {
			t.Fatalf("%s: %d job rows", what, n)
		}
		if n := h.spoolFiles(); n != 0 {
			t.Fatalf("%s: %d spool files", what, n)
		}
	}
	ct, body := formBody(t, "file", "big.tar.gz", bytes.Repeat([]byte{1}, ingest.MaxArchiveBytes+1))
	st, b, hdr := h.post(tok, ct, body)
	wantRefused(st, b, hdr, "2,500,001 bytes")
	ct, body = formBody(t, "file", "big.tar.gz", bytes.Repeat([]byte{1}, 4_000_000))
	st, b, hdr = h.post(tok, ct, body)
	wantRefused(st, b, hdr, "4,000,000 bytes (refused on Content-Length)")
	// Authentication comes first.
	st, b, hdr = h.post("", ct, body)
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)

	ct, body = formBody(t, "file", "big.tar.gz", bytes.Repeat([]byte{1}, ingest.MaxArchiveBytes))
	st, b, _ = h.post(tok, ct, body)
	if st != http.StatusOK || jobRows() != 1 || h.spoolFiles() != 1 {
		t.Fatalf("2,500,000 bytes: %d %s; %d job rows, %d spool files", st, b, jobRows(), h.spoolFiles())
	}
}

func TestSubmitRequestErrors(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	collect, read := h.token("acme", "collect"), h.token("acme", "read")
	ct, body := formBody(t, "comment", "", []byte("no archive here"))
	st, b, hdr := h.post(collect, ct, body)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, `"file"`)
	st, b, hdr = h.post(collect, "application/json", []byte(`{"file": "x"}`))
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "multipart/form-data")
	// One file part under another name is the archive.
	ct, body = formBody(t, "archive", "named.tar.gz", tarGz(t, "a.json", "{}"))
	if st, b, _ = h.post(collect, ct, body); st != http.StatusOK {
		t.Fatalf("single file part: %d %s", st, b)
	}
	st, b, hdr = h.post(read, ct, body)
	h.wantError(st, b, hdr, http.StatusForbidden, CodeAccessDenied, "collect")
	st, b, hdr = h.post("", ct, body)
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
	st, b, hdr = h.do("PUT", "/v2/indexes-collect-jobs", collect, "{}")
	h.wantError(st, b, hdr, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
}

func TestJobReadsAreTenantScoped(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	collect := h.token("acme", "collect")
	id := jobIDOf(t, h.submit(collect, "a.tar.gz", tarGz(t, "a.json", "{}")))
	other := h.token("globex", "collect,read")
	for _, path := range []string{"/v2/indexes-collect-jobs/" + id, "/v2/indexes-collect-jobs/6f1c1a52-0000-4000-8000-000000000000", "/v2/indexes-collect-jobs/not-a-uuid"} {
		tok := collect
		if strings.Contains(path, id) {
			tok = other
		}
		st, b, hdr := h.do("GET", path, tok, "")
		h.wantError(st, b, hdr, http.StatusNotFound, CodeJobNotFound)
	}
	st, b, _ := h.do("GET", "/v2/smt-jobs", other, "")
	if st != http.StatusOK || !bytes.Contains(b, []byte(`"totalElements":0`)) || bytes.Contains(b, []byte(id)) {
		t.Fatalf("another tenant's listing: %d %s", st, b)
	}
	// Scopes: collect or read (or admin) read jobs; other scopes are 403; no token 401.
	for _, tok := range []string{collect, h.token("acme", "read"), h.admin} {
		if st, b, _ := h.do("GET", "/v2/indexes-collect-jobs/"+id, tok, ""); st != http.StatusOK {
			t.Fatalf("job read: %d %s", st, b)
		}
		if st, b, _ := h.do("GET", "/v2/smt-jobs", tok, ""); st != http.StatusOK || !bytes.Contains(b, []byte(id)) {
			t.Fatalf("listing: %d %s", st, b)
		}
	}
	targets := h.token("acme", "targets")
	for _, path := range []string{"/v2/indexes-collect-jobs/" + id, "/v2/smt-jobs"} {
		st, b, hdr := h.do("GET", path, targets, "")
		h.wantError(st, b, hdr, http.StatusForbidden, CodeAccessDenied)
		st, b, hdr = h.do("GET", path, "", "")
		h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
	}
}

// putJobRow writes a job row directly, as the intake would, at a chosen state time.
func putJobRow(t *testing.T, h *jobsHarness, tenant, id, state string, ts time.Time) {
	t.Helper()
	b, err := h.db.Conn.PrepareBatch(context.Background(), "INSERT INTO jobs (tenant_id, job_id, archive, state, state_ts, submitted_ts, history_states, history_ts, files, version)")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(tenant, id, "old.tar.gz", state, ts, ts, []string{state}, []time.Time{ts}, "[]", uint64(time.Now().UnixNano())); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}

type pageJSON struct {
	Links map[string]struct{ Href string } `json:"_links"`
	Page  struct {
		TotalElements, TotalPages, Number, Size int
	} `json:"page"`
	Embedded struct {
		Jobs []struct {
			ID      string `json:"id"`
			Archive string `json:"archive"`
			State   struct{ Current, TS string }
			Report  struct {
				Overview map[string]int `json:"overview"`
			} `json:"report"`
			Links map[string]struct{ Href string } `json:"_links"`
		} `json:"jobs"`
	} `json:"_embedded"`
}

func (h *jobsHarness) list(token, query string) pageJSON {
	h.t.Helper()
	st, b, _ := h.do("GET", "/v2/smt-jobs"+query, token, "")
	if st != http.StatusOK {
		h.t.Fatalf("GET /v2/smt-jobs%s: %d %s", query, st, b)
	}
	var p pageJSON
	if err := json.Unmarshal(b, &p); err != nil {
		h.t.Fatal(err)
	}
	if p.Embedded.Jobs == nil && !bytes.Contains(b, []byte(`"jobs":[]`)) {
		h.t.Fatalf("_embedded.jobs is not an array: %s", b)
	}
	return p
}

func wantLinks(t *testing.T, p pageJSON, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k, v := range p.Links {
		got[k] = v.Href
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("links:\n got  %v\n want %v", got, want)
	}
}

func TestListJobsPagesLinksAndFilters(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	tok := h.token("acme", "read,collect")
	var ids []string // newest first
	for i := 0; i < 7; i++ {
		ids = append([]string{jobIDOf(t, h.submit(tok, fmt.Sprintf("a%d.tar.gz", i), tarGz(t, "a.json", "{}")))}, ids...)
	}
	base := h.srv.URL + "/v2/smt-jobs?"
	ids3 := func(p pageJSON) []string {
		var out []string
		for _, j := range p.Embedded.Jobs {
			out = append(out, j.ID)
			if j.Links["self"].Href != h.srv.URL+"/v2/indexes-collect-jobs/"+j.ID || j.State.Current != "SUBMITTED" ||
				!timestampZPattern.MatchString(j.State.TS) || len(j.Report.Overview) != 3 {
				t.Fatalf("listed job %+v", j)
			}
		}
		return out
	}

	p := h.list(tok, "?size=3")
	wantLinks(t, p, map[string]string{"first": base + "page=0&size=3", "self": base + "page=0&size=3", "next": base + "page=1&size=3", "last": base + "page=2&size=3"})
	if p.Page.TotalElements != 7 || p.Page.TotalPages != 3 || p.Page.Number != 0 || p.Page.Size != 3 || !reflect.DeepEqual(ids3(p), ids[:3]) {
		t.Fatalf("page 0: %+v %v", p.Page, ids3(p))
	}
	p = h.list(tok, "?size=3&page=1")
	wantLinks(t, p, map[string]string{"first": base + "page=0&size=3", "prev": base + "page=0&size=3", "self": base + "page=1&size=3", "next": base + "page=2&size=3", "last": base + "page=2&size=3"})
	if !reflect.DeepEqual(ids3(p), ids[3:6]) {
		t.Fatalf("page 1: %v", ids3(p))
	}
	p = h.list(tok, "?page=2&size=3")
	wantLinks(t, p, map[string]string{"first": base + "page=0&size=3", "prev": base + "page=1&size=3", "self": base + "page=2&size=3", "last": base + "page=2&size=3"})
	if !reflect.DeepEqual(ids3(p), ids[6:]) {
		t.Fatalf("page 2: %v", ids3(p))
	}
	if p = h.list(tok, ""); p.Page.Size != 100 || p.Page.Number != 0 || len(p.Embedded.Jobs) != 7 {
		t.Fatalf("defaults: %+v", p.Page)
	}
	wantLinks(t, p, map[string]string{"first": base + "page=0&size=100", "self": base + "page=0&size=100", "last": base + "page=0&size=100"})

	// Filters are kept in every link; an empty result still has first, self and last.
	now := time.Now().UTC()
	begin, end := now.Add(-time.Hour).Format("2006-01-02T15:04:05Z"), now.Add(time.Hour).Format("2006-01-02T15:04:05Z")
	q := "?state=DONE&beginTs=" + begin + "&endTs=" + end + "&size=2"
	p = h.list(tok, q)
	kept := "beginTs=" + url.QueryEscape(begin) + "&endTs=" + url.QueryEscape(end) + "&page=0&size=2&state=DONE"
	wantLinks(t, p, map[string]string{"first": base + kept, "self": base + kept, "last": base + kept})
	if p.Page.TotalElements != 0 || p.Page.TotalPages != 0 || len(p.Embedded.Jobs) != 0 {
		t.Fatalf("no DONE job: %+v", p.Page)
	}
	p = h.list(tok, strings.Replace(q, "DONE", "SUBMITTED", 1))
	if p.Page.TotalElements != 7 || p.Page.TotalPages != 4 || p.Links["next"].Href != base+strings.Replace(strings.Replace(kept, "page=0", "page=1", 1), "DONE", "SUBMITTED", 1) {
		t.Fatalf("SUBMITTED in the last two hours: %+v %v", p.Page, p.Links)
	}

	// state.ts decides: a job finished 20 days ago is outside the default 7 days.
	old := "6f1c1a52-0000-4000-8000-0000000000aa"
	putJobRow(t, h, "acme", old, "IN_PROGRESS", now.Add(-20*24*time.Hour).Truncate(time.Second))
	if p = h.list(tok, ""); p.Page.TotalElements != 7 {
		t.Fatalf("default range: %d jobs", p.Page.TotalElements)
	}
	p = h.list(tok, "?state=IN_PROGRESS&beginTs="+now.Add(-25*24*time.Hour).Format("2006-01-02T15:04:05Z"))
	if p.Page.TotalElements != 1 || p.Embedded.Jobs[0].ID != old || p.Embedded.Jobs[0].State.Current != "IN_PROGRESS" {
		t.Fatalf("25 days back: %+v", p)
	}
	// Exactly 30 days is allowed.
	if p = h.list(tok, "?beginTs=2024-01-01T00:00:00Z&endTs=2024-01-31T00:00:00Z"); p.Page.TotalElements != 0 {
		t.Fatalf("January 2024: %+v", p.Page)
	}
}

func TestListJobsParameterErrors(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	tok := h.token("acme", "read")
	for _, c := range []struct{ query, code, mention string }{
		{"?size=0", CodeInvalidParameter, "size"},
		{"?size=101", CodeInvalidParameter, "size"},
		{"?size=abc", CodeInvalidParameter, "size"},
		{"?page=-1", CodeInvalidParameter, "page"},
		{"?state=FINISHED", CodeInvalidParameter, "state"},
		{"?beginTs=2024-01-01T00:00:00%2B01:00", CodeInvalidParameter, "beginTs"},
		{"?endTs=2024-01-01", CodeInvalidParameter, "endTs"},
		{"?beginTs=2024-01-02T00:00:00Z&endTs=2024-01-01T00:00:00Z", CodeInvalidParameter, "beginTs"},
		{"?beginTs=2024-01-01T00:00:00Z&endTs=2024-01-31T00:00:01Z", CodePeriodTooLong, "30 days"},
		{"?beginTs=2024-01-01T00:00:00Z&endTs=2024-02-21T00:00:00Z", CodePeriodTooLong, "beginTs and endTs: 2024-01-01T00:00:00Z to 2024-02-21T00:00:00Z is 51.00 days"},
		{"?beginTs=2020-01-01T00:00:00Z", CodePeriodTooLong, "30 days"},
	} {
		st, b, hdr := h.do("GET", "/v2/smt-jobs"+c.query, tok, "")
		h.wantError(st, b, hdr, http.StatusBadRequest, c.code, c.mention)
	}
}
