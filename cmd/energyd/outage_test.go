package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
)

// embedded is an energyd running its own ClickHouse under a temporary data dir, with a token.
type embedded struct {
	*daemon
	dir    string
	db     *schema.DB
	reg    *registry.Store
	secret string
}

func startEmbedded(t *testing.T, args ...string) *embedded {
	t.Helper()
	dir := t.TempDir()
	d := startEnergydWith(t, buildEnergyd(t), append([]string{"--data-dir", dir}, args...)...)
	dsn, err := server.RecordedDSN(filepath.Join(dir, "clickhouse"))
	if err != nil {
		t.Fatal(err)
	}
	db, reg, secret := acmeWithSite(t, strings.TrimSuffix(dsn, "/default")+"/energy")
	return &embedded{daemon: d, dir: dir, db: db, reg: reg, secret: secret}
}

// acmeWithSite opens the migrated store at dsn and gives tenant acme an admin token (the
// secret returned) and a site S1.
func acmeWithSite(t *testing.T, dsn string) (*schema.DB, *registry.Store, string) {
	t.Helper()
	ctx := context.Background()
	db, err := schema.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := registry.New(db)
	secret, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	return db, reg, secret
}

// storePID is the pid of the ClickHouse that energyd launched: its only child process.
func (e *embedded) storePID(t *testing.T) int {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(e.cmd.Process.Pid) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			pid, err := strconv.Atoi(fields[0])
			if err == nil {
				return pid
			}
		}
	}
	t.Fatal("energyd has no child process (its embedded ClickHouse)")
	return 0
}

func (e *embedded) do(t *testing.T, method, path, contentType string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+e.addr+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, "/readyz") && !strings.HasPrefix(path, "/healthz") {
		req.Header.Set("Authorization", "Bearer "+e.secret)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (e *embedded) waitStatus(t *testing.T, path string, status int, within time.Duration) {
	t.Helper()
	for end := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		resp, _ := e.do(t, http.MethodGet, path, "", nil)
		if resp.StatusCode == status {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("GET %s still %d after %v, want %d", path, resp.StatusCode, within, status)
		}
	}
}

// storeUp is the value of energy_store_up on /metrics.
func (e *embedded) storeUp(t *testing.T) string {
	t.Helper()
	_, b := e.do(t, http.MethodGet, "/metrics", "", nil)
	m := regexp.MustCompile(`(?m)^energy_store_up (\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("/metrics has no energy_store_up")
	}
	return string(m[1])
}

// A frozen ClickHouse (SIGSTOP) gives 503 STORAGE_UNAVAILABLE with Retry-After within the
// read deadline (2 s here), /readyz turns 503 within a few seconds, and both are 200 again
// once it runs (SIGCONT).
func TestStalledStoreAnswers503WithinTheDeadline(t *testing.T) {
	e := startEmbedded(t, "--query-timeout", "2s")
	const jobs = "/v2/smt-jobs"
	if resp, b := e.do(t, http.MethodGet, jobs, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the stall: %d %s", resp.StatusCode, b)
	}
	// Oversized headers are refused before anything else (431), normal ones served.
	req, _ := http.NewRequest(http.MethodGet, "http://"+e.addr+"/healthz", nil)
	req.Header.Set("X-Padding", strings.Repeat("a", 100<<10))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("100 KiB of headers: %v %v, want 431", resp, err)
	} else {
		resp.Body.Close()
	}

	pid := e.storePID(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	start := time.Now()
	resp, b := e.do(t, http.MethodGet, jobs, "", nil)
	took := time.Since(start)
	var body struct{ ErrorCode string }
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusServiceUnavailable || body.ErrorCode != "STORAGE_UNAVAILABLE" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("during the stall: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if took > 4*time.Second {
		t.Fatalf("503 after %v, want within the 2-s read deadline (plus scheduling)", took)
	}
	e.waitStatus(t, "/readyz", http.StatusServiceUnavailable, 5*time.Second)
	// The store-up gauge, which EnergyStoreUnreachable alerts on, says the same.
	if v := e.storeUp(t); v != "0" {
		t.Errorf("energy_store_up during the stall: %s, want 0", v)
	}

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "/readyz", http.StatusOK, 10*time.Second)
	if v := e.storeUp(t); v != "1" {
		t.Errorf("energy_store_up after the stall: %s, want 1", v)
	}
	if resp, b := e.do(t, http.MethodGet, jobs, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the stall: %d %s", resp.StatusCode, b)
	}
}

// A killed embedded ClickHouse is restarted (a log line, the restart metric), and an archive
// submitted during the outage is accepted and its job ends DONE with exactly its rows.
func TestKilledStoreIsRestartedAndJobsFinish(t *testing.T) {
	e := startEmbedded(t)
	// The client has used its token before (energyd keeps verified tokens in memory for 5 s),
	// after energyd's token watcher saw the token's creation (which empties that memory).
	time.Sleep(time.Second)
	if resp, b := e.do(t, http.MethodGet, "/v2/smt-jobs", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the kill: %d %s", resp.StatusCode, b)
	}
	if err := syscall.Kill(e.storePID(t), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	file := `{"smartElecIndexes": [
	  {"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-01T04:00:00Z", "value": {"1": 100, "2": 200}},
	  {"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2024-02-02T00:00:00Z", "generationTs": "2024-02-02T04:00:00Z", "value": {"1": 110, "2": 230}},
	  {"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2024-02-03T00:00:00Z", "generationTs": "2024-02-03T04:00:00Z", "value": {"1": 125, "2": 270}}]}`
	contentType, body := archiveForm(t, "indexes.json", file)
	resp, b := e.do(t, http.MethodPost, "/v2/indexes-collect-jobs", contentType, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("submission during the outage: %d %s\nenergyd log:\n%s", resp.StatusCode, b, e.drainLog())
	}
	var link struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal(b, &link); err != nil {
		t.Fatal(err)
	}
	path := link.Links.Self.Href[strings.Index(link.Links.Self.Href, "/v2/"):]

	var job struct {
		State    struct{ Current string }
		Overview struct {
			NbOperationsTotal, NbOperationsOK int
		} `json:"report"`
	}
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, b := e.do(t, http.MethodGet, path, "", nil)
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(b, &job); err != nil {
				t.Fatal(err)
			}
			if job.State.Current != "SUBMITTED" && job.State.Current != "IN_PROGRESS" {
				break
			}
		}
		if time.Now().After(end) {
			t.Fatalf("job not final 90 s after the store was killed: %d %s", resp.StatusCode, b)
		}
	}
	if job.State.Current != "DONE" {
		t.Fatalf("job ended %s, want DONE", job.State.Current)
	}
	var rows uint64
	if err := e.db.Conn.QueryRow(context.Background(), "SELECT count() FROM elec_indexes FINAL WHERE tenant_id = 'acme' AND site_id = 'S1'").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 6 {
		t.Fatalf("%d index rows stored, want 6 (3 readings × 2 dials)", rows)
	}
	e.waitLine(t, "embedded ClickHouse restarted", 10*time.Second)
	_, metrics := e.do(t, http.MethodGet, "/metrics", "", nil)
	if !strings.Contains(string(metrics), "energy_clickhouse_restarts_total 1\n") {
		t.Fatalf("restart metric missing or not 1:\n%s", grepLines(string(metrics), "energy_clickhouse_restarts"))
	}
	if resp, b := e.do(t, http.MethodGet, "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz after a restart: %d %s", resp.StatusCode, b)
	}
}

// drainLog returns the energyd log lines not read yet.
func (e *embedded) drainLog() string { return drainLines(e.lines) }

// drainLines returns the lines waiting in a log channel, without waiting for more.
func drainLines(lines chan string) string {
	var out []string
	for {
		select {
		case l := <-lines:
			out = append(out, l)
		default:
			return strings.Join(out, "\n")
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// archiveForm is a multipart body whose "file" part is a .tar.gz holding one file.
func archiveForm(t *testing.T, name, content string) (string, []byte) {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write([]byte(content))
	_ = tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(tb.Bytes())
	_ = zw.Close()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	pw, err := mw.CreateFormFile("file", "archive.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(gz.Bytes())
	_ = mw.Close()
	return mw.FormDataContentType(), form.Bytes()
}
