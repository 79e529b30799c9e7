// Command ingest measures, in one run, the end-to-end time (POST to DONE) of the two largest
// archives the collection limits allow against a launched energyd on a launched ClickHouse,
// and the rate of clickhouse-client inserting the same rows as JSONEachRow, and what two costs
// of a job weigh: other energyds ingest the same archives without the by-site copy of the
// indexes (bysite.go) and without writing the daily energy table (daily.go), the runs
// alternating; it writes the tables to bench/results/ingest.md. With --mixed it measures instead dashboards' reads while
// several uploaders replay those archives continuously (bench/results/mixed.md); with --cluster,
// ingest and consumption latency on a local cluster beside a single node (bench/results/cluster.md).
//
//	go run ./bench/ingest [--runs 3] [--out bench/results/ingest.md]
//	go run ./bench/ingest --mixed [--phase 60s] --out bench/results/mixed.md   # reads during ingest
//	go run ./bench/ingest --cluster --out bench/results/cluster.md             # cluster vs single node
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"energy/bench/daemon"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
	"energy/schema/tables"
)

// Targets: the largest allowed archive from POST to DONE within 2 s, at a row rate at least
// half that of clickhouse-client loading the same rows.
const (
	targetSeconds = 2.0
	targetRatio   = 0.5
	pollEvery     = 50 * time.Millisecond // each poll reads the job from ClickHouse: no faster on 2 cores
)

type options struct {
	runs       int
	out        string
	energyd    string
	clientBin  string
	workers    int
	keep       bool
	dsn        string
	mixed      mixedOptions
	mixedRun   bool
	pprof      string // with --mixed: the uploads' energyd's --pprof-listen
	cluster    clusterOptions
	clusterRun bool
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 3, "measurements per archive and per clickhouse-client insert; the table shows the median")
	flag.StringVar(&o.out, "out", "bench/results/ingest.md", "markdown file to write")
	flag.StringVar(&o.energyd, "energyd", "", "energyd binary to launch (default: built from ./cmd/energyd)")
	flag.StringVar(&o.clientBin, "clickhouse-client", "clickhouse-client", "clickhouse-client binary")
	flag.IntVar(&o.workers, "workers", 2, "energyd --workers")
	flag.StringVar(&o.dsn, "clickhouse-dsn", "", "use this ClickHouse (database energy, and one database per clickhouse-client run) instead of launching one")
	flag.BoolVar(&o.mixedRun, "mixed", false, "measure reads during ingest instead (make bench-mixed): dashboards poll consumption answers, idle then while uploaders replay the archives")
	flag.IntVar(&o.mixed.readSites, "read-sites", 200, "with --mixed or --cluster: sites × one year of consumption data the reads use")
	flag.DurationVar(&o.mixed.phase, "phase", 60*time.Second, "with --mixed: length of the idle phase and of the ingest phase (60s: each p99 of computed reads is the 10th slowest of about 960 requests)")
	flag.IntVar(&o.mixed.uploaders, "uploaders", 4, "with --mixed: concurrent uploaders replaying the archives")
	flag.IntVar(&o.mixed.computedClients, "computed-clients", 4, "with --mixed: dashboards asking computed answers")
	flag.IntVar(&o.mixed.cachedClients, "cached-clients", 4, "with --mixed: dashboards asking cached answers")
	flag.DurationVar(&o.mixed.computedEvery, "computed-every", 250*time.Millisecond, "with --mixed: poll interval of each computed dashboard")
	flag.DurationVar(&o.mixed.cachedEvery, "cached-every", 20*time.Millisecond, "with --mixed: poll interval of each cached dashboard")
	flag.StringVar(&o.pprof, "pprof-listen", "", "with --mixed: loopback address on which the energyd taking the uploads serves /debug/pprof/ (profile it during the ingest phase)")
	flag.IntVar(&o.mixed.touchedClients, "touched-clients", 4, "with --mixed: dashboards polling the cached answer of a site the uploads write to (one site each)")
	flag.DurationVar(&o.mixed.touchedEvery, "touched-every", 100*time.Millisecond, "with --mixed: poll interval of each dashboard of an uploaded site")
	flag.BoolVar(&o.clusterRun, "cluster", false, "compare instead a single ClickHouse and a local cluster (make bench-cluster): ingest through 1 and 2 energyd, consumption latency on --read-sites sites")
	flag.IntVar(&o.cluster.archives, "cluster-archives", 16, "with --cluster: archives per ingest measurement")
	flag.IntVar(&o.cluster.uploaders, "cluster-uploaders", 4, "with --cluster: concurrent uploaders")
	flag.IntVar(&o.cluster.coldRuns, "cold-runs", 100, "with --cluster: computed requests per request kind and store")
	flag.IntVar(&o.cluster.cachedRuns, "cached-runs", 1000, "with --cluster: cached requests per request kind and store")
	flag.IntVar(&o.cluster.basePort, "cluster-base-port", 29100, "with --cluster: nodes listen on this port +1..+4 (native) and +11..+14 (interserver)")
	flag.IntVar(&o.cluster.zkPort, "zookeeper-port", 29182, "with --cluster: ZooKeeper's client port")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (ClickHouse data, energyd log, JSONEachRow files)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench-ingest: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runner := run
	switch {
	case o.mixedRun:
		runner = runMixed
	case o.clusterRun:
		runner = runCluster
	}
	if err := runner(ctx, o); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, o options) error {
	if o.runs < 1 {
		return errors.New("--runs must be at least 1")
	}
	if _, err := exec.LookPath(o.clientBin); err != nil {
		return fmt.Errorf("%s not found (apt-get install clickhouse-client): %w", o.clientBin, err)
	}
	tmp, archives, cleanup, err := prepare(ctx, &o, "bench-ingest-")
	if err != nil {
		return err
	}
	defer cleanup()

	dsn, db, stopStore, err := startStore(ctx, o, tmp)
	if err != nil {
		return err
	}
	defer stopStore()

	log.Printf("starting energyd (%d workers)", o.workers)
	api, stopEnergyd, err := startEnergyd(ctx, o, filepath.Join(tmp, "energyd-run"), dsn)
	if err != nil {
		return err
	}
	defer stopEnergyd()

	reg := registry.New(db)
	token, _, err := reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "bench-ingest")
	if err != nil {
		return err
	}
	if err := putSites(ctx, reg); err != nil {
		return err
	}

	// One small archive first, so that the measured jobs do not pay for connection set-up.
	if _, err := submitAndWait(ctx, api, token, warmupArchive()); err != nil {
		return fmt.Errorf("warm-up archive: %w", err)
	}
	var fixed []time.Duration // a one-operation archive: the per-job cost whatever the size
	for range o.runs {
		waitForMerges(ctx, db)
		j, err := submitAndWait(ctx, api, token, warmupArchive())
		if err != nil {
			return err
		}
		fixed = append(fixed, j.elapsed)
	}
	variants := []*variant{withoutCopy(), withoutDaily()}
	for _, v := range variants {
		if err := v.start(ctx, o, tmp, dsn, len(archives)); err != nil {
			return err
		}
		defer v.stop()
	}
	results := make([]result, len(archives))
	for r := range o.runs {
		for i, a := range archives {
			log.Printf("run %d/%d: %s", r+1, o.runs, a.Name)
			withAll := func() error {
				clearIndexReadings(ctx, db)
				before := insertSeconds(api)
				j, err := submitAndWait(ctx, api, token, *a)
				if err != nil {
					return err
				}
				results[i].inserts = append(results[i].inserts, time.Duration((insertSeconds(api)-before)*float64(time.Second)))
				if err := checkStored(ctx, db, j, *a); err != nil {
					return err
				}
				if err := checkDailyWritten(ctx, db, *a); err != nil {
					return err
				}
				results[i].archive = a
				results[i].times = append(results[i].times, j.elapsed)
				return nil
			}
			steps := []func() error{withAll}
			for _, v := range variants {
				steps = append(steps, func() error { return v.measure(ctx, i, a) })
			}
			// Each run starts with another energyd, so that none is always first after a pause.
			for k := range steps {
				if err := steps[(k+r)%len(steps)](); err != nil {
					return err
				}
			}
		}
	}

	// Each clickhouse-client insert goes into fresh tables of its own database: re-inserting the
	// same rows into one ReplacingMergeTree would let merges collapse them before counting.
	log.Printf("clickhouse-client inserts")
	for i, a := range archives {
		path := filepath.Join(tmp, a.Table+".jsonl")
		if err := os.WriteFile(path, a.RowsJSON, 0o644); err != nil {
			return err
		}
		for r := range o.runs {
			database := fmt.Sprintf("cc_%s_%d", a.Table, r)
			ccDSN, err := schema.WithDatabase(dsn, database)
			if err != nil {
				return err
			}
			cc, err := schema.Open(ctx, ccDSN, "")
			if err != nil {
				return err
			}
			if err := cc.Migrate(ctx, nil); err != nil {
				cc.Close()
				return err
			}
			waitForMerges(ctx, db)
			d, err := clientInsert(ctx, o.clientBin, dsn, database, a.Table, a.Columns, path)
			if err != nil {
				cc.Close()
				return err
			}
			results[i].clientTimes = append(results[i].clientTimes, d)
			var n uint64
			err = cc.Conn.QueryRow(ctx, "SELECT count() FROM "+a.Table).Scan(&n)
			cc.Close()
			if err != nil {
				return err
			}
			if n != uint64(a.Rows) {
				return fmt.Errorf("clickhouse-client stored %d rows in %s.%s, want %d", n, database, a.Table, a.Rows)
			}
		}
	}

	var version string
	if err := db.Conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return err
	}
	md := markdown(machine(version, o), results, fixed) + dailyCostMarkdown(results, variants[1].results) +
		copyCostMarkdown(variants[1].results, variants[0].results)
	fmt.Print(md)
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(o.out, []byte(md), 0o644)
}

// prepare makes the run's temporary directory (removed by cleanup unless --keep), the two
// largest archives, and the energyd binary unless --energyd names one.
func prepare(ctx context.Context, o *options, name string) (tmp string, archives []*benchArchive, cleanup func(), err error) {
	if tmp, err = os.MkdirTemp("", name); err != nil {
		return "", nil, nil, err
	}
	remove := func() { _ = os.RemoveAll(tmp) }
	if o.keep {
		log.Printf("temporary files kept in %s", tmp)
		remove = func() {}
	}
	defer func() {
		if err != nil {
			remove() // the named results are zero by now
		}
	}()
	log.Printf("generating the archives")
	smart, err := smartIndexArchive()
	if err != nil {
		return "", nil, nil, err
	}
	curves, err := loadCurveArchive()
	if err != nil {
		return "", nil, nil, err
	}
	if o.energyd == "" {
		o.energyd = filepath.Join(tmp, "energyd")
		log.Printf("building energyd")
		if err := daemon.Build(ctx, o.energyd); err != nil {
			return "", nil, nil, err
		}
	}
	return tmp, []*benchArchive{&smart, &curves}, remove, nil
}

// startStore launches ClickHouse under tmp (unless --clickhouse-dsn names one), opens database
// energy with timeouts fit for loading a data set and applies the migrations; stop closes and
// stops what it started.
func startStore(ctx context.Context, o options, tmp string) (dsn string, db *schema.DB, stop func(), err error) {
	log.Printf("starting ClickHouse")
	dsn, ch, err := server.DSNOrLocal(ctx, o.dsn, filepath.Join(tmp, "clickhouse"), "energy")
	if err != nil {
		return "", nil, nil, err
	}
	stopServer := func() {}
	if ch != nil {
		stopServer = func() { _ = ch.Stop() }
	}
	db, err = schema.OpenWithTimeouts(ctx, dsn, "", loadTimeouts)
	if err == nil {
		if err = db.Migrate(ctx, nil); err != nil {
			db.Close()
		}
	}
	if err != nil {
		stopServer()
		return "", nil, nil, err
	}
	return dsn, db, func() { db.Close(); stopServer() }, nil
}

// loadTimeouts bound the benchmark's own ClickHouse calls: loading a data set on a busy machine
// takes far longer than the service's per-call defaults allow.
var loadTimeouts = schema.Timeouts{Read: 10 * time.Minute, Write: 10 * time.Minute, Migrate: 10 * time.Minute}

// putSites registers the archives' sites in the benchmark's tenant.
func putSites(ctx context.Context, reg *registry.Store) error {
	for i := range sites {
		id, sc, pc := benchSite(i)
		if err := reg.PutSite(ctx, registry.Site{TenantID: tenant, SiteID: id, SiteCustomerID: sc, PersonCustomerID: pc}); err != nil {
			return err
		}
	}
	return nil
}

// startEnergyd launches the binary on a free port against the ClickHouse database, with its
// data dir and log under dir and the extra flags, and waits for /readyz.
func startEnergyd(ctx context.Context, o options, dir, dsn string, extra ...string) (string, func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "energyd.log"))
	if err != nil {
		return "", nil, err
	}
	args := []string{"--listen", addr, "--advice-listen", "", "--data-dir", filepath.Join(dir, "data"),
		"--clickhouse-dsn", dsn, "--workers", strconv.Itoa(o.workers), "--log-level", "warn",
		"--rate-limit", "off"} // the benchmarks' clients share one token and measure the service, not its limits
	cmd := exec.Command(o.energyd, append(args, extra...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logf.Close()
	}
	api := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(api + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return api, stop, nil
			}
		}
		select {
		case <-exited:
			logf.Close()
			b, _ := os.ReadFile(logf.Name())
			return "", nil, fmt.Errorf("energyd exited: %s", lastLines(string(b), 5))
		case <-ctx.Done():
			stop()
			return "", nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, errors.New("energyd not ready within 60 s")
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// warmupArchive is one file of a few indexes.
func warmupArchive() benchArchive {
	id, _, _ := benchSite(0)
	body := fmt.Sprintf(`{"smartElecIndexes":[{"siteId":%q,"podId":"09999999999999","ts":"2025-01-01T00:00:00Z","generationTs":"2025-01-01T06:00:00Z","nature":"MKT_SMART_DISTRIBUTOR","value":{"1":1,"2":2}}]}`, id)
	data, err := tarGz("warmup", [][]byte{[]byte(body)})
	if err != nil {
		panic(err)
	}
	return benchArchive{Name: "warmup.tar.gz", Data: data, Operations: 1}
}

// finishedJob is a job seen in a final state.
type finishedJob struct {
	id      string
	elapsed time.Duration
}

// submitAndWait posts the archive and polls its job every pollEvery; the elapsed time runs
// from the start of the POST to the poll that sees the job final. The job must end DONE with
// every operation OK.
func submitAndWait(ctx context.Context, api, token string, a benchArchive) (finishedJob, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", a.Name)
	if err != nil {
		return finishedJob{}, err
	}
	part.Write(a.Data)
	mw.Close()

	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, api+"/v2/indexes-collect-jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	var sub struct {
		Links struct {
			Self struct {
				Href string `json:"href"`
			} `json:"self"`
		} `json:"_links"`
	}
	if err := doJSON(req, &sub); err != nil {
		return finishedJob{}, fmt.Errorf("submit %s: %w", a.Name, err)
	}
	href := sub.Links.Self.Href
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, href, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		var job struct {
			ID    string `json:"id"`
			State struct {
				Current string `json:"current"`
			} `json:"state"`
			Report json.RawMessage `json:"report"`
		}
		if err := doJSON(req, &job); err != nil {
			return finishedJob{}, fmt.Errorf("job of %s: %w", a.Name, err)
		}
		switch job.State.Current {
		case "DONE", "ERROR", "TIMEOUT":
			elapsed := time.Since(start)
			var rep struct {
				Overview struct {
					Total int `json:"nbOperationsTotal"`
					OK    int `json:"nbOperationsOK"`
				} `json:"overview"`
			}
			_ = json.Unmarshal(job.Report, &rep)
			if job.State.Current != "DONE" || rep.Overview.OK != a.Operations || rep.Overview.Total != a.Operations {
				return finishedJob{}, fmt.Errorf("%s: job %s ended %s with %d/%d operations OK, want DONE with %d: %s",
					a.Name, job.ID, job.State.Current, rep.Overview.OK, rep.Overview.Total, a.Operations, trim(job.Report))
			}
			return finishedJob{id: job.ID, elapsed: elapsed}, nil
		}
		select {
		case <-ctx.Done():
			return finishedJob{}, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

func trim(b []byte) string { return string(b[:min(len(b), 600)]) }

func doJSON(req *http.Request, out any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, trim(b))
	}
	return json.Unmarshal(b, out)
}

// waitForMerges lets the background merges of earlier runs finish (10 s at most), so that
// every measurement starts from a quiet server.
func waitForMerges(ctx context.Context, db *schema.DB) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM system.merges").Scan(&n); err != nil || n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// clearIndexReadings empties the index reading tables, their by-site copies and the daily
// energy table, then waits for merges: every run ingests the same archive again, and each run's
// job is to find the store as a new archive's job does, without its readings (else its days
// would be computed from its readings twice over, the earlier run's copy and its own).
func clearIndexReadings(ctx context.Context, db *schema.DB) {
	for _, t := range []string{tables.ElecIndexes, tables.GasIndexes, tables.ElecIndexesBySite, tables.GasIndexesBySite, tables.DailyEnergy} {
		if err := db.Conn.Exec(ctx, "TRUNCATE TABLE "+t); err != nil {
			log.Printf("emptying %s: %v", t, err)
		}
	}
	waitForMerges(ctx, db)
}

// checkStored verifies that the job stored exactly the archive's rows.
func checkStored(ctx context.Context, db *schema.DB, j finishedJob, a benchArchive) error {
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+a.Table+" WHERE job_id = ?", j.id).Scan(&n); err != nil {
		return err
	}
	if n != uint64(a.Rows) {
		return fmt.Errorf("%s: job %s stored %d rows in %s, want %d", a.Name, j.id, n, a.Table, a.Rows)
	}
	return nil
}

// clientInsert times clickhouse-client inserting the JSONEachRow file (process start included:
// that is what loading a file with the stock tool costs).
func clientInsert(ctx context.Context, bin, dsn, database, table, columns, path string) (time.Duration, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return 0, err
	}
	port := u.Port()
	if port == "" {
		port = "9000"
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	query := fmt.Sprintf("INSERT INTO %s.%s (%s) FORMAT JSONEachRow", database, table, columns)
	args := []string{"--host", u.Hostname(), "--port", port, "--query", query}
	if u.User != nil {
		pass, _ := u.User.Password()
		args = append(args, "--user", u.User.Username(), "--password", pass)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("clickhouse-client %s: %w: %s", query, err, lastLines(stderr.String(), 3))
	}
	return time.Since(start), nil
}

// result is the measurements of one archive.
type result struct {
	archive     *benchArchive
	times       []time.Duration
	inserts     []time.Duration // energyd's time in ClickHouse batch inserts during the job
	clientTimes []time.Duration
}

// insertSeconds reads energyd's cumulated batch insert time from /metrics (0 when absent).
func insertSeconds(api string) float64 {
	resp, err := http.Get(api + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	total := 0.0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "energy_ingest_insert_duration_seconds_sum") {
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				total += v
			}
		}
	}
	return total
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// machine describes where the numbers come from.
func machine(chVersion string, o options) string {
	cpus := strconv.Itoa(numCPU())
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	commit := ""
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	goVersion := ""
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		goVersion = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("- Machine: %s cores (nproc), %s; load average %s when the table was written\n"+
		"- Date: %s; commit %s; %s; ClickHouse %s launched by the benchmark; energyd with %d workers\n"+
		"- Each time is the median of %d runs after one small warm-up archive, each run started on index tables (and their by-site copies, and the daily energy table) emptied of the earlier runs' rows, as a new archive finds them, once ClickHouse has no merge running; end-to-end = from the start of the POST to the first poll (every %s) that sees DONE, every operation OK and the rows counted in ClickHouse\n"+
		"- clickhouse-client: `clickhouse-client --query \"INSERT INTO db.<table> (<columns>) FORMAT JSONEachRow\" < rows.jsonl`, the same rows as the service stores, process start included\n",
		cpus, model, load, time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, goVersion, chVersion, o.workers, o.runs, pollEvery)
}

func numCPU() int {
	if out, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			return n
		}
	}
	return 0
}

func markdown(machine string, results []result, fixed []time.Duration) string {
	var b strings.Builder
	b.WriteString("# Ingest benchmark\n\nThe two largest archives the collection limits allow, end to end through energyd, against clickhouse-client loading the same rows.\n\n")
	b.WriteString(machine)
	b.WriteString("\n| archive | operations | rows stored | POST → DONE | of which batch inserts | rows/s | clickhouse-client | clickhouse-client rows/s | ratio | < 2 s | ratio ≥ 0.5 |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|\n")
	for _, r := range results {
		t, c := median(r.times).Seconds(), median(r.clientTimes).Seconds()
		rate, crate := float64(r.archive.Rows)/t, float64(r.archive.Rows)/c
		ratio := rate / crate
		fmt.Fprintf(&b, "| %s (%s bytes) | %s | %s | %.2f s | %.2f s | %s | %.2f s | %s | %.2f | %s | %s |\n",
			r.archive.Name, thousands(float64(len(r.archive.Data))), thousands(float64(r.archive.Operations)), thousands(float64(r.archive.Rows)),
			t, median(r.inserts).Seconds(), thousands(rate), c, thousands(crate), ratio,
			mark(t < targetSeconds), mark(ratio >= targetRatio))
	}
	fmt.Fprintf(&b, "\nA one-operation archive takes %.2f s from POST to DONE (median; runs %s): the per-job cost (spool, job states, polling) in the times above.\n", median(fixed).Seconds(), seconds(fixed))
	b.WriteString("\nAll runs (s): ")
	for i, r := range results {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: energyd %s (batch inserts %s), clickhouse-client %s", r.archive.Name, seconds(r.times), seconds(r.inserts), seconds(r.clientTimes))
	}
	b.WriteString(".\n\nReproduce: `make bench-ingest` (or `go run ./bench/ingest`).\n")
	return b.String()
}

func mark(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func seconds(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.2f", d.Seconds()))
	}
	return strings.Join(parts, ", ")
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
