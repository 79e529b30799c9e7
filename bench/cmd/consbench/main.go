// Command consbench measures the consumption endpoint on a generated data set (1,000 sites ×
// one year of 30-minute load curves and daily smart indexes): latency p50/p99 for one site over
// one year at DAYS, MONTHS and HOURS (the 1,200-step window), computed (cache bypassed) and
// cached, beside the same aggregation run directly with clickhouse-client, then cached
// throughput under concurrent load. It writes a markdown table (bench/results/consumption.md).
// With --postgres it compares instead the same data in a throwaway PostgreSQL, ClickHouse direct
// SQL and the service without its result cache (bench/results/postgres.md). With --scale it
// measures the same requests at several fleet sizes (bench/results/scale.md).
//
//	go run ./bench/cmd/consbench            # or: make bench
//	go run ./bench/cmd/consbench --postgres --regenerate --out bench/results/postgres.md   # or: make bench-pg
//	go run ./bench/cmd/consbench --scale 100,1000,10000 --out bench/results/scale.md     # or: make bench-scale
//
// The data set is generated once under --dir and reused by later runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"energy/apidocs"
	"energy/bench"
	"energy/query/cache"
	"energy/query/comparison"
	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
	"energy/schema/tables"
)

type options struct {
	dir, dsn, out, cpuProfile string
	sites, year               int
	runs, cachedRuns          int
	concurrency               int
	loadDuration              time.Duration
	loadRequests              int
	regenerate, skipWrk       bool
	comparisonOnly            bool // the yearly comparison's row alone (make bench-comparison)
	readFloor                 bool // what one site's read costs ClickHouse (make bench-read-floor)
	postgres                  bool // compare with PostgreSQL instead (make bench-pg)
	budget                    bool // measure the budget matrix instead (make bench-budget)
	scale, scaleDir           string
	pgRounds, scanRuns        int
	logRequests               int
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "./var/bench", "directory of the benchmark's ClickHouse (data kept between runs)")
	flag.StringVar(&o.dsn, "clickhouse-dsn", "", "use this ClickHouse (database bench) instead of launching one under --dir")
	flag.StringVar(&o.out, "out", "bench/results/consumption.md", "markdown result file")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the computed (uncached) requests to this file")
	flag.IntVar(&o.sites, "sites", 1000, "sites in the data set")
	flag.IntVar(&o.year, "year", 2024, "year of the readings")
	flag.IntVar(&o.runs, "runs", 40, "timed runs per computed request and per direct SQL query")
	flag.IntVar(&o.cachedRuns, "cached-runs", 2000, "timed runs per cached request")
	flag.IntVar(&o.concurrency, "concurrency", 32, "concurrent clients of the throughput test")
	flag.DurationVar(&o.loadDuration, "load-duration", 5*time.Second, "duration bound of each throughput test")
	flag.IntVar(&o.loadRequests, "load-requests", 200000, "request bound of each throughput test")
	flag.BoolVar(&o.regenerate, "regenerate", false, "drop and generate the data set again")
	flag.BoolVar(&o.skipWrk, "skip-wrk", false, "do not run wrk even when installed")
	flag.BoolVar(&o.comparisonOnly, "comparison-only", false, "measure only the yearly comparison against MONTHS and write its table alone (make bench-comparison)")
	flag.BoolVar(&o.postgres, "postgres", false, "compare with a throwaway PostgreSQL instead: per-site answers, all-sites scans, load and disk (make bench-pg)")
	flag.BoolVar(&o.budget, "budget", false, "measure the budget matrix of one heating site-year instead, cold and cached, beside the model's two reads as direct SQL (make bench-budget)")
	flag.BoolVar(&o.readFloor, "read-floor", false, "measure instead what one site's read costs ClickHouse whatever its size: SELECT 1, 4 rows, the engine's DAYS-year read, the year flat, a pre-computed daily energy table (make bench-read-floor)")
	flag.StringVar(&o.scale, "scale", "", "measure instead at these fleet sizes (comma-separated, e.g. 100,1000,10000), one data set per size under --scale-dir (make bench-scale)")
	flag.StringVar(&o.scaleDir, "scale-dir", "./var/bench-scale", "with --scale: directory holding one data set directory per size")
	flag.IntVar(&o.pgRounds, "pg-rounds", 200, "with --postgres: rounds of per-site requests (DAYS, MONTHS, HOURS on each store)")
	flag.IntVar(&o.scanRuns, "scan-runs", 5, "with --postgres: runs of each all-sites scan on each store")
	flag.IntVar(&o.logRequests, "log-requests", 20, "with --postgres or --scale: requests of each kind measured in system.query_log")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	runner := run
	switch {
	case o.postgres:
		runner = runPostgres
	case o.budget:
		runner = runBudget
	case o.scale != "":
		runner = runScale
	case o.readFloor:
		runner = runReadFloor
	}
	if err := runner(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "consbench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// benchTimeouts bound the benchmark's own ClickHouse calls: loading and scanning the whole data
// set on a busy machine takes far longer than the service's per-call defaults allow.
var benchTimeouts = schema.Timeouts{Read: 10 * time.Minute, Write: 10 * time.Minute, Migrate: 10 * time.Minute}

// dataSet is the benchmark's ClickHouse with the data set loaded.
type dataSet struct {
	dsn string
	db  *schema.DB
	reg *registry.Store
}

// openDataSet starts the benchmark's ClickHouse (unless --clickhouse-dsn is given), applies the
// migrations and generates the data set when it is absent or --regenerate is set, recording
// the load times in r. close stops what it started.
func openDataSet(ctx context.Context, o options, r *report) (ds *dataSet, closeAll func(), err error) {
	var closers []func()
	stopAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	closeAll = stopAll
	defer func() {
		if err != nil {
			stopAll() // not closeAll: an error return has set it to nil
		}
	}()
	dsn, srv, err := server.DSNOrLocal(ctx, o.dsn, filepath.Join(o.dir, "clickhouse"), "bench")
	if err != nil {
		return nil, nil, fmt.Errorf("ClickHouse: %w", err)
	}
	if srv != nil {
		closers = append(closers, func() { _ = srv.Stop() })
	}
	db, err := schema.OpenWithTimeouts(ctx, dsn, "", benchTimeouts)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, func() { _ = db.Close() })
	if err := db.Migrate(ctx, nil); err != nil {
		return nil, nil, err
	}
	reg := registry.New(db)
	present, err := bench.Present(ctx, db, r.spec)
	if err != nil {
		return nil, nil, err
	}
	if o.regenerate || !present {
		if err := clearData(ctx, db); err != nil {
			return nil, nil, err
		}
		spec := r.spec
		logf("generating %d sites × 1 year (%d load-curve points and %d indexes each)...", spec.Sites, spec.PointsPerSite(), spec.IndexesPerSite())
		every := max(200, spec.Sites/10/bench.SitesPerBatch*bench.SitesPerBatch) // about ten progress lines
		start := time.Now()
		if err := bench.Register(ctx, reg, spec); err != nil {
			return nil, nil, err
		}
		r.registerTime = time.Since(start)
		logf("  sites and tariff registered (%.1f s)", r.registerTime.Seconds())
		// The loader's queries are logged so that their server CPU can be read back.
		loadCtx, loadStart, cpu0 := logQueries(ctx), time.Now(), processCPU()
		start = time.Now()
		err := bench.LoadReadings(loadCtx, db, spec, func(done int) {
			if done%every == 0 || done == spec.Sites {
				logf("  %d sites loaded (%.0f s)", done, time.Since(start).Seconds())
			}
		})
		if err != nil {
			return nil, nil, err
		}
		r.loadTime = time.Since(start)
		r.loadCost.LoaderCPU = (processCPU() - cpu0).Seconds()
		start = time.Now()
		if err := bench.Optimize(loadCtx, db); err != nil {
			return nil, nil, err
		}
		r.optimizeTime = time.Since(start)
		if err := serverLoadCost(ctx, db, loadStart, &r.loadCost); err != nil {
			return nil, nil, err
		}
		r.loadedNow = true
		logf("readings loaded in %.1f s, merged in %.1f s", r.loadTime.Seconds(), r.optimizeTime.Seconds())
		r.saveLoadTimes(o.dir)
	} else {
		r.readLoadTimes(o.dir)
		if err := bench.Settle(ctx, db); err != nil {
			return nil, nil, err
		}
	}
	if err := ensureDailyTable(ctx, db, reg); err != nil {
		return nil, nil, err
	}
	if err := r.describeData(ctx, db); err != nil {
		return nil, nil, err
	}
	return &dataSet{dsn: dsn, db: db, reg: reg}, closeAll, nil
}

func run(ctx context.Context, o options) error {
	r := &report{spec: bench.Spec{Sites: o.sites, Year: o.year}, opts: o}
	ds, closeAll, err := openDataSet(ctx, o, r)
	if err != nil {
		return err
	}
	defer closeAll()
	dsn, db, reg := ds.dsn, ds.db, ds.reg

	trace := &chTrace{}
	db.Conn = tracedConn{Conn: db.Conn, trace: trace} // the registry and the engine read through it
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	means := weather.NewCachedMeans(weather.NewStore(db), reg.Versions) // as energyd serves them
	comparisons := comparison.NewEngine(engine, means)
	coldURL, cachedURL, token, stop, err := serveColdAndCached(ctx, reg,
		apidocs.Config{Registry: reg, Ready: db.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, 0, 0),
			Comparisons: comparison.NewComparisons(comparisons, reg.Versions, 0, 0)},
		apidocs.Config{Registry: reg, Ready: db.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, cache.DefaultEntries, cache.DefaultBytes),
			Comparisons: comparison.NewComparisons(comparisons, reg.Versions, cache.DefaultEntries, cache.DefaultBytes)})
	if err != nil {
		return err
	}
	defer stop()
	client := newClient(o.concurrency)
	site := bench.SiteID(o.sites / 2)

	for _, sc := range scenarios(site, o.year) {
		if o.comparisonOnly {
			break
		}
		res := &scenarioResult{scenario: sc}
		logf("%s: checking the answer...", sc.name)
		if err := check(client, coldURL+sc.path, token, sc, res); err != nil {
			return err
		}
		if err := check(client, cachedURL+sc.path, token, sc, res); err != nil { // also fills the cache
			return err
		}
		// Computed requests and direct SQL (rows delivered, then server only) alternate in
		// rounds, so that load from other processes on the machine weighs on all alike.
		logf("%s: %d computed requests and 2 × %d direct SQL queries in %d rounds...", sc.name, o.runs, o.runs, rounds)
		stopProfile := startProfile(o.cpuProfile, sc.name)
		for round := range rounds {
			n := o.runs/rounds + boolInt(round < o.runs%rounds)
			calls0, nanos0 := trace.snapshot()
			cold, err := timeRequests(client, coldURL+sc.path, token, n, "MISS")
			if err != nil {
				stopProfile()
				return err
			}
			calls1, nanos1 := trace.snapshot()
			res.cold = append(res.cold, cold...)
			res.chCalls += calls1 - calls0
			res.chNanos += nanos1 - nanos0
			sql, err := timeSQL(ctx, dsn, sc.sql, n, delivered)
			if err != nil {
				stopProfile()
				return err
			}
			res.sql = append(res.sql, sql.times...)
			res.sqlBytes, res.sqlRows = sql.bytes, sql.rows
			null, err := timeSQL(ctx, dsn, sc.sql, n, serverOnly)
			if err != nil {
				stopProfile()
				return err
			}
			res.sqlNull = append(res.sqlNull, null.times...)
		}
		stopProfile()
		c50, s50 := percentile(res.cold, 50), percentile(res.sql, 50)
		logf("%s computed p50 %s, direct SQL with rows delivered p50 %s: %.2f×", sc.name, ms(c50), ms(s50), float64(c50)/float64(s50))
		logf("%s: %d cached requests...", sc.name, o.cachedRuns)
		if res.cached, err = timeRequests(client, cachedURL+sc.path, token, o.cachedRuns, "HIT"); err != nil {
			return err
		}
		r.scenarios = append(r.scenarios, res)
	}
	for _, sc := range scenarios(site, o.year) {
		if sc.name == "HOURS" || o.comparisonOnly {
			continue
		}
		logf("%s: cached throughput, %d clients, at most %s or %d requests...", sc.name, o.concurrency, o.loadDuration, o.loadRequests)
		lr, err := loadTest(client, cachedURL+sc.path, token, o.concurrency, o.loadDuration, o.loadRequests)
		if err != nil {
			return err
		}
		lr.scenario = sc
		if !o.skipWrk {
			lr.wrk = runWrk(ctx, cachedURL+sc.path, token, o.concurrency, o.loadDuration)
			if lr.gzipBytes, err = gzipBody(client, cachedURL+sc.path, token); err != nil {
				return err
			}
			lr.wrkGzip = runWrk(ctx, cachedURL+sc.path, token, o.concurrency, o.loadDuration, acceptGzip)
		}
		r.loads = append(r.loads, lr)
	}
	// Last: giving the site its weather station changes the tenant's reference records, which
	// drops the cached consumption answers.
	for _, sc := range scenarios(site, o.year) {
		if sc.name != "MONTHS" {
			continue
		}
		if r.comparison, err = measureComparison(ctx, o, db, reg, means, client, coldURL, cachedURL, token, site, sc.path); err != nil {
			return err
		}
	}
	logAnswerPaths()
	if o.comparisonOnly {
		return writeResults(o.out, r.comparisonMarkdown())
	}
	return writeResults(o.out, r.markdown())
}

// writeResults writes the markdown to path and prints it.
func writeResults(path, md string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Print(md)
	logf("written to %s", path)
	return nil
}

// clearData empties the readings and reference tables of the benchmark database.
func clearData(ctx context.Context, db *schema.DB) error {
	for _, t := range []string{tables.LoadCurvePoints, tables.ElecIndexes, tables.ElecIndexesBySite, tables.Sites, tables.Tariffs, tables.DailyEnergy, tables.DailyEnergyBySite} {
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+t+" WHERE tenant_id = ?", bench.Tenant).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		if err := db.Conn.Exec(ctx, "TRUNCATE TABLE "+t); err != nil {
			return fmt.Errorf("empty %s (use a fresh --dir): %w", t, err)
		}
	}
	return nil
}

// serve runs the main API with cons on a loopback port.
// serveColdAndCached serves the API twice, with cold's and cached's services, and makes a read
// token of the benchmark's tenant.
func serveColdAndCached(ctx context.Context, reg *registry.Store, cold, cached apidocs.Config) (coldURL, cachedURL, token string, stop func(), err error) {
	coldURL, stopCold, err := serve(cold)
	if err != nil {
		return "", "", "", nil, err
	}
	cachedURL, stopCached, err := serve(cached)
	if err != nil {
		stopCold()
		return "", "", "", nil, err
	}
	stop = func() { stopCached(); stopCold() }
	if token, _, err = reg.CreateToken(ctx, bench.Tenant, []string{string(registry.ScopeRead)}, 24*time.Hour, "consbench"); err != nil {
		stop()
		return "", "", "", nil, err
	}
	return coldURL, cachedURL, token, stop, nil
}

// serve runs the main API with cfg on a free loopback port.
func serve(cfg apidocs.Config) (string, func(), error) {
	h, _ := apidocs.NewMain(cfg)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }, nil
}

func newClient(conc int) *http.Client {
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		MaxIdleConns: conc * 2, MaxIdleConnsPerHost: conc * 2, DisableCompression: true, IdleConnTimeout: time.Minute,
	}}
}

// get sends one request and reads the whole body.
func get(client *http.Client, url, token string) (int, []byte, http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return do(client, req)
}

// do sends req and reads the whole body.
func do(client *http.Client, req *http.Request) (int, []byte, http.Header, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

func timeRequests(client *http.Client, url, token string, n int, wantCache string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		st, b, hdr, err := get(client, url, token)
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if st != http.StatusOK {
			return nil, fmt.Errorf("%s: %d %s", url, st, b)
		}
		if c := hdr.Get("X-Cache"); c != wantCache {
			return nil, fmt.Errorf("%s: X-Cache %q, want %s", url, c, wantCache)
		}
		out = append(out, d)
	}
	return out, nil
}

func startProfile(path, name string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%s", path, name))
	if err != nil {
		logf("cpuprofile: %v", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		logf("cpuprofile: %v", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

var errBadAnswer = errors.New("unexpected answer")

// rounds is how many alternations of computed requests and direct SQL each scenario runs.
const rounds = 4

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
