package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"energy/schema/chtest"
)

// needTool finds a Prometheus binary: CI installs Debian's prometheus package (.ci/run), so
// there a missing one fails the test; elsewhere the test is skipped.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (Debian package prometheus; .ci/run installs it)", name)
	}
	t.Skipf("%s is not installed (apt-get install prometheus)", name)
	return ""
}

// The committed scrape configuration is one that Prometheus accepts.
func TestPrometheusConfigChecks(t *testing.T) {
	promtool := needTool(t, "promtool")
	out, err := exec.Command(promtool, "check", "config", "../../deploy/prometheus/prometheus.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config deploy/prometheus/prometheus.yml: %v\n%s", err, out)
	}
}

// energyd's /metrics passes promtool check metrics, and every labelled counter has its known
// label values at 0 before anything happened (a dashboard shows 0, not "no data").
func TestMetricsExposition(t *testing.T) {
	promtool := needTool(t, "promtool")
	adviceAddr := freeAddr(t)
	d := startEnergydWith(t, buildEnergyd(t), "--clickhouse-dsn", chtest.DSN(t), "--data-dir", t.TempDir(), "--advice-listen", adviceAddr)
	code, body := get("http://" + d.addr + "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	for _, series := range []string{
		`energy_clickhouse_errors_total{op="insert"} 0`,
		`energy_clickhouse_errors_total{op="query"} 0`,
		`energy_ingest_jobs_total{state="ERROR"} 0`,
		`energy_ingest_jobs_total{state="TIMEOUT"} 0`,
		`energy_ingest_operations_total{result="ko"} 0`,
		`energy_ingest_rows_inserted_total{table="load_curve_points"} 0`,
		`energy_ingest_insert_duration_seconds_count{table="max_powers"} 0`,
		`energy_ingest_job_latency_seconds_count{state="DONE"} 0`,
		`energy_notifications_failed_total{channel="SMS"} 0`,
		`energy_notifications_sent_total{channel="EMAIL"} 0`,
		`energy_advice_jobs_total{status="ERROR"} 0`,
		`energy_http_requests_in_flight{listener="advice"} 0`,
		`energy_store_up 1`,
	} {
		if !strings.Contains(body, "\n"+series+"\n") {
			t.Errorf("/metrics lacks %s at start", series)
		}
	}
	// The build, and the data directory's file system (what the alerts read).
	if !regexp.MustCompile(`\nenergy_build_info\{goversion="go1\.[0-9.]+",revision="[^"]+",version="[^"]+"\} 1\n`).MatchString(body) {
		t.Errorf("/metrics lacks energy_build_info with its labels")
	}
	for _, family := range []string{"energy_data_dir_size_bytes", "energy_data_dir_free_bytes"} {
		if !regexp.MustCompile(`\n` + family + ` [0-9.e+]+\n`).MatchString(body) {
			t.Errorf("/metrics lacks %s", family)
		}
	}
	// The scheduler's histograms, which tell a request waiting for a processor from one
	// waiting for the collector.
	for _, family := range []string{"go_sched_latencies_seconds_bucket", "go_sched_pauses_total_gc_seconds_bucket"} {
		if !strings.Contains(body, "\n"+family+"{le=") {
			t.Errorf("/metrics lacks %s", family)
		}
	}
	// The advice listener serves the same process-wide registry (which is why the scrape
	// configuration reads only the main listener: reading both would count everything twice).
	if code, advice := get("http://" + adviceAddr + "/metrics"); code != http.StatusOK || !strings.Contains(advice, `energy_http_requests_in_flight{listener="main"}`) {
		t.Errorf("advice listener /metrics: %d, main listener's series present: %v", code, strings.Contains(advice, `listener="main"`))
	}
}

// A real Prometheus scrapes energyd, through the committed scrape configuration, while a
// little traffic goes on; every expression of the Grafana dashboards must parse and return at
// least one series.
func TestDashboardExpressionsReturnSeries(t *testing.T) {
	prom := needTool(t, "prometheus")
	dsn := chtest.DSN(t)
	adviceAddr := freeAddr(t)
	d := startEnergydWith(t, buildEnergyd(t), "--clickhouse-dsn", dsn, "--data-dir", t.TempDir(), "--advice-listen", adviceAddr)
	traffic := newTraffic(t, dsn, d.addr)

	promAddr := startPrometheus(t, prom, d.addr)
	exprs := dashboardExpressions(t)
	if len(exprs) < 25 {
		t.Fatalf("only %d expressions found in deploy/grafana/dashboards", len(exprs))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go traffic.run(ctx)
	traffic.submitArchive(t)

	// Every expression gets until the deadline to return a series (rates need two scrapes
	// after the traffic); a parse or evaluation error fails at once.
	pending := map[string]string{} // expression → what it returned last
	for _, e := range exprs {
		pending[e.expr] = "not evaluated"
	}
	deadline := time.Now().Add(45 * time.Second)
	for len(pending) > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		for expr := range pending {
			n, err := promQuery(promAddr, expr)
			if err != nil {
				t.Fatalf("%s\n%v", expr, err)
			}
			if n > 0 {
				delete(pending, expr)
			} else {
				pending[expr] = "no series"
			}
		}
	}
	for _, e := range exprs {
		if why, ok := pending[e.expr]; ok {
			t.Errorf("panel %q: %s\n  %s", e.panel, why, e.expr)
		}
	}
	// The dashboard's variables list values: label_values(metric, label) through the series API.
	for _, v := range dashboardVariables(t) {
		values, err := promLabelValues(promAddr, v.label, v.match)
		if err != nil || len(values) == 0 {
			t.Errorf("variable %s: label_values(%s, %s) gives %v %v", v.name, v.match, v.label, values, err)
		}
	}
}

// panelExpr is one query of one dashboard panel, with the dashboard's variables replaced by
// what Grafana sends when "All" is selected.
type panelExpr struct{ panel, expr string }

var dashboardVars = strings.NewReplacer(`$job`, `energyd`, `$instance`, `.+`, `$__rate_interval`, `1m`)

func dashboardExpressions(t *testing.T) []panelExpr {
	t.Helper()
	files, _ := filepath.Glob("../../deploy/grafana/dashboards/*.json")
	if len(files) == 0 {
		t.Fatal("no dashboard under deploy/grafana/dashboards")
	}
	type panel struct {
		Title      string
		Datasource struct{ Type string }
		Targets    []struct{ Expr string }
		Panels     []json.RawMessage // panels of a collapsed row
	}
	var out []panelExpr
	var walk func(raw []json.RawMessage)
	walk = func(raw []json.RawMessage) {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatal(err)
			}
			if p.Datasource.Type == "grafana-clickhouse-datasource" {
				continue // SQL, run by query/daily's dashboard test
			}
			for _, tg := range p.Targets {
				expr := dashboardVars.Replace(tg.Expr)
				if strings.Contains(expr, "$") {
					t.Fatalf("panel %q uses a variable this test does not know: %s", p.Title, tg.Expr)
				}
				out = append(out, panelExpr{p.Title, expr})
			}
			walk(p.Panels)
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var dash struct{ Panels []json.RawMessage }
		if err := json.Unmarshal(b, &dash); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(dash.Panels)
	}
	return out
}

type dashboardVariable struct{ name, match, label string }

var labelValues = regexp.MustCompile(`^label_values\((.+), *([a-z_]+)\)$`)

func dashboardVariables(t *testing.T) []dashboardVariable {
	t.Helper()
	files, _ := filepath.Glob("../../deploy/grafana/dashboards/*.json")
	var out []dashboardVariable
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var dash struct {
			Templating struct {
				List []struct {
					Name, Type, Definition string
					Datasource             struct{ Type string }
				}
			}
		}
		if err := json.Unmarshal(b, &dash); err != nil {
			t.Fatal(err)
		}
		for _, v := range dash.Templating.List {
			if v.Type != "query" || v.Datasource.Type == "grafana-clickhouse-datasource" {
				continue // SQL variables are run by query/daily's dashboard test
			}
			m := labelValues.FindStringSubmatch(v.Definition)
			if m == nil {
				t.Fatalf("variable %s: %q is not label_values(metric, label)", v.Name, v.Definition)
			}
			out = append(out, dashboardVariable{v.Name, dashboardVars.Replace(m[1]), m[2]})
		}
	}
	return out
}

// startPrometheus runs Prometheus on loopback with the committed scrape configuration,
// pointed at energyd's main listener and scraping every second; it returns its address.
func startPrometheus(t *testing.T, bin, energyd string) string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, r := range [][2]string{{`"energyd:8080"`, `"` + energyd + `"`}, {"scrape_interval: 15s", "scrape_interval: 1s"}} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("deploy/prometheus/prometheus.yml no longer has %s", r[0])
		}
		cfg = strings.ReplaceAll(cfg, r[0], r[1])
	}
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if code, _ := get("http://" + addr + "/-/ready"); code == http.StatusOK {
			return addr
		}
		select {
		case <-done:
			t.Fatalf("prometheus exited:\n%s", log.String())
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("prometheus not ready within 30 s:\n%s", log.String())
		}
	}
}

// promQuery evaluates expr now and returns how many series it gave.
func promQuery(addr, expr string) (int, error) {
	var r struct {
		Status, Error string
		Data          struct {
			Result []json.RawMessage
		}
	}
	if err := promGet(addr, "/api/v1/query?query="+url.QueryEscape(expr), &r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("prometheus: %s", r.Error)
	}
	return len(r.Data.Result), nil
}

func promLabelValues(addr, label, match string) ([]string, error) {
	var r struct {
		Status, Error string
		Data          []string
	}
	if err := promGet(addr, "/api/v1/label/"+label+"/values?match[]="+url.QueryEscape(match), &r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("prometheus: %s", r.Error)
	}
	return r.Data, nil
}

func promGet(addr, path string, into any) error {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%d %s", resp.StatusCode, b)
	}
	return nil
}

// traffic is what a small healthy deployment sees: consumption reads (computed, then from
// the cache), a job listing, a client with a wrong token, an unknown route, and an archive.
type traffic struct {
	api, secret string
}

func newTraffic(t *testing.T, dsn, api string) *traffic {
	t.Helper()
	_, _, secret := acmeWithSite(t, dsn)
	return &traffic{api: "http://" + api, secret: secret}
}

func (tr *traffic) do(method, path, contentType string, body []byte, token string) (int, []byte, error) {
	req, err := http.NewRequest(method, tr.api+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

func (tr *traffic) run(ctx context.Context) {
	for ctx.Err() == nil {
		_, _, _ = tr.do(http.MethodGet, "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-02-01T00:00:00&endTs=2024-02-04T00:00:00&stepUnit=DAYS", "", nil, tr.secret)
		_, _, _ = tr.do(http.MethodGet, "/v2/smt-jobs", "", nil, tr.secret)
		_, _, _ = tr.do(http.MethodGet, "/v2/sites/S1", "", nil, "not-a-token")
		_, _, _ = tr.do(http.MethodGet, "/no/such/route", "", nil, "")
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// submitArchive sends one archive of readings and waits until its job is DONE.
func (tr *traffic) submitArchive(t *testing.T) {
	t.Helper()
	contentType, body := archiveForm(t, "indexes.json", smartElecIndexes("S1",
		[3]any{"2024-02-01T00:00:00Z", 100, 200}, [3]any{"2024-02-02T00:00:00Z", 110, 230}, [3]any{"2024-02-03T00:00:00Z", 125, 270}))
	code, b, err := tr.do(http.MethodPost, "/v2/indexes-collect-jobs", contentType, body, tr.secret)
	if err != nil || code != http.StatusOK {
		t.Fatalf("archive submission: %d %s %v", code, b, err)
	}
	var link struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal(b, &link); err != nil {
		t.Fatal(err)
	}
	path := link.Links.Self.Href[strings.Index(link.Links.Self.Href, "/v2/"):]
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, b, err := tr.do(http.MethodGet, path, "", nil, tr.secret)
		var job struct{ State struct{ Current string } }
		if err == nil && code == http.StatusOK && json.Unmarshal(b, &job) == nil && job.State.Current == "DONE" {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("archive job not DONE within 60 s: %d %s %v", code, b, err)
		}
	}
}
