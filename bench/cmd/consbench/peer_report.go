package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"energy/bench"
)

// ratioLine is the closing machine-readable line: energyd cold p50 / PostgreSQL p50 per request
// kind, and PostgreSQL / ClickHouse for the scan where ClickHouse leads least.
func ratioLine(requests []*peerRequest, scans []*peerScan) string {
	var b strings.Builder
	b.WriteString("pg-ratio")
	for _, req := range requests {
		fmt.Fprintf(&b, " %s=%.2f", req.name, ratio(percentile(req.times[storeEnergyd], 50), percentile(req.times[storePG], 50)))
	}
	if len(scans) > 0 {
		least := 0.0
		for i, s := range scans {
			if r := ratio(percentile(s.times[storePG], 50), percentile(s.times[storeCH], 50)); i == 0 || r < least {
				least = r
			}
		}
		fmt.Fprintf(&b, " SCAN=%.2f", least)
	}
	return b.String()
}

// fastest names the store with the lowest p50 and how many times faster it is than the slowest.
func fastest(p50s map[string]time.Duration) string {
	best, worst := "", ""
	for name, d := range p50s {
		if best == "" || d < p50s[best] {
			best = name
		}
		if worst == "" || d > p50s[worst] {
			worst = name
		}
	}
	if best == worst {
		return best
	}
	return fmt.Sprintf("%s, %.1f× %s", best, ratio(p50s[worst], p50s[best]), worst)
}

func pair(ds []time.Duration) string {
	return strings.TrimSuffix(ms(percentile(ds, 50)), " ms") + " / " + ms(percentile(ds, 99))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func (r *peerReport) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	points, indexes := r.points, r.indexes
	w("### Per-site answers against PostgreSQL\n\n")
	w("`make bench-pg` (`go run ./bench/cmd/consbench --postgres`), %s, commit %s. Machine: %s cores, %s "+
		"(load average at the end %s); Go %s, ClickHouse %s, PostgreSQL %s (Debian's package, a throwaway cluster).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), r.commit, nproc(), cpuModel(), loadAverage(), strings.TrimPrefix(runtime.Version(), "go"), r.clickhouseVersion, r.pgVersion)
	w("Data: the consumption benchmark's generator, %s sites × %d (Europe/Paris): %s load-curve points, %s index rows, loaded into both stores site after site. "+
		"Per-site requests: %d rounds, each on a random site, DAYS, MONTHS and HOURS (the 1,200-hour window) over the year sent to the three in turn, "+
		"the first of the three changing every round so that other load on the machine weighs on all; Go clients (pgx, clickhouse-go, HTTP/1.1 with keep-alive over loopback "+
		"to energyd running as its own process, result cache off, body read whole). Times run from sending the request to having read the whole answer. "+
		"Every answer of every round was compared: PostgreSQL and ClickHouse gave the same Wh for every dial (or HC/total) and step, and so did energyd "+
		"(to its 0.001 Wh rounding). The scans: %d runs each, alternating which store goes first, answers compared likewise.\n\n",
		thousands(uint64(r.spec.Sites)), r.spec.Year, thousands(points), thousands(indexes), r.opts.pgRounds, r.opts.scanRuns)

	w("| measure | PostgreSQL | ClickHouse direct SQL | energyd, cache off | fastest |\n|---|---:|---:|---:|---|\n")
	for _, req := range r.requests {
		w("| per-site %s, p50 / p99 (%s energies) | %s | %s | %s | %s |\n", req.label, thousands(uint64(req.steps)),
			pair(req.times[storePG]), pair(req.times[storeCH]), pair(req.times[storeEnergyd]),
			fastest(map[string]time.Duration{"PostgreSQL": percentile(req.times[storePG], 50), "ClickHouse SQL": percentile(req.times[storeCH], 50), "energyd": percentile(req.times[storeEnergyd], 50)}))
	}
	for _, s := range r.scans {
		w("| %s, p50 / p99 (%s energies) | %s | %s | – | %s |\n", s.label, thousands(uint64(s.rows)), pair(s.times[storePG]), pair(s.times[storeCH]),
			fastest(map[string]time.Duration{"PostgreSQL": percentile(s.times[storePG], 50), "ClickHouse": percentile(s.times[storeCH], 50)}))
	}
	chLoad := r.loadTime + r.optimizeTime
	loadNote := ""
	if !r.loadedNow {
		loadNote = " (when the data set was generated)"
	}
	w("| load of the same rows, ready to answer | %.1f s (COPY FREEZE %.1f s, btree %.1f s, ANALYZE %.1f s) | %.1f s%s (INSERT %.1f s, OPTIMIZE FINAL %.1f s) | – | %s |\n",
		r.pg.total().Seconds(), r.pg.copyTime.Seconds(), r.pg.indexTime.Seconds(), r.pg.analyzeTime.Seconds(),
		chLoad.Seconds(), loadNote, r.loadTime.Seconds(), r.optimizeTime.Seconds(),
		fastest(map[string]time.Duration{"PostgreSQL": r.pg.total(), "ClickHouse": chLoad}))
	if r.registerTime > 0 {
		w("| before the load, not in it: the sites and tariff through the service's registry | none (PostgreSQL is given only the readings) | %.1f s%s | – | – |\n",
			r.registerTime.Seconds(), loadNote)
	}
	w("| disk: load curve / indexes (PostgreSQL: with their btree; ClickHouse: with the by-site copy) | %s / %s | %s / %s | – | ClickHouse, %.0f× / %.0f× smaller |\n\n",
		mib(r.pg.curveBytes), mib(r.pg.indexesBytes), mib(int64(r.chCurve)), mib(int64(r.chIndexes)),
		float64(r.pg.curveBytes)/float64(max(r.chCurve, 1)), float64(r.pg.indexesBytes)/float64(max(r.chIndexes, 1)))
	b.WriteString(loadBound(r.loadCost, r.pg.total(), nproc(), loadNote))

	w("ClickHouse's work per request, from `system.query_log` (finished queries, mean of %d requests of each kind on random sites, each batch alone in its seconds of the log): "+
		"energyd's queries (readings or load curve; the site directory's check of the tenant, every 2.5 s in the background while it is in use, when one fell in the batch; "+
		"not its polls of tokens, data versions, jobs and notifications, which run whether requests come or not) and the direct SQL's. "+
		"Read rows and bytes are what the server read from its tables, time the server's own duration; energyd's CPU is its process's user + system time over the batch "+
		"(/proc, 10 ms ticks), per request: decoding, computing, encoding and serving the answer, and its background polls.\n\n", r.opts.logRequests)
	w("| request | energyd: queries | read rows | read bytes | server time | energyd CPU | direct SQL: read rows | read bytes | server time |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, req := range r.requests {
		e, d := req.energyd, req.directSQL
		w("| %s | %.1f | %s | %s | %.1f ms | %.1f ms | %s | %s | %.1f ms |\n", req.label, e.queries, thousands(uint64(e.readRows)), kib(int64(e.readBytes)), e.durationMs,
			e.goCPUMs, thousands(uint64(d.readRows)), kib(int64(d.readBytes)), d.durationMs)
	}
	for _, s := range r.scans {
		d := s.direct
		w("| %s | – | – | – | – | – | %s | %s | %.0f ms |\n", s.label, thousands(uint64(d.readRows)), mib(int64(d.readBytes)), d.durationMs)
	}
	w("\nPostgreSQL as a competent user sets it up: the same columns as the ClickHouse tables (fixed-width first, no alignment padding), rows loaded in site and time order by one session with "+
		"`COPY … FROM STDIN WITH (FREEZE)` in the transaction that creates the tables (frozen, all-visible rows, no WAL with `wal_level=minimal`, no VACUUM needed; both stores' rows come from the same generator goroutine running ahead of the load), "+
		"then one btree per table in the order the reads want, `(tenant_id, site_id, dial, ts, generation_ts DESC)` and `(tenant_id, site_id, begin_ts, generation_ts DESC)`, "+
		"then ANALYZE; the latest generation by `DISTINCT ON` in the btree's order (no sort); settings `%s`; durability left on. "+
		"ClickHouse: the project's tables and the benchmark's loader (column-wise batches of %d sites, two inserts at once, each sent in chunks; the sites through the registry before the timed load), direct SQL with `argMax` of the generation "+
		"and no FINAL, as in the consumption benchmark. energyd: its binary built from this commit, run as its own process over the benchmark's ClickHouse "+
		"(`--clickhouse-dsn … --cache-entries 0 --rate-limit off`, its background work running as it always does), as dashboards meet it; its queries logged to `system.query_log`. "+
		"PostgreSQL's per-site queries name the step unit and the time zone as literals (each unit its own prepared statement), so that its planner sees them.\n\n",
		strings.Join(pgSettings, " "), bench.SitesPerBatch)
	w("<details><summary>The PostgreSQL queries (prepared once each; $1 tenant, $2 site, $3 and $4 the instants bound)</summary>\n\n```sql\n-- DAYS\n%s;\n\n-- MONTHS\n%s;\n\n-- HOURS\n%s;\n\n-- all sites, load curve\n%s;\n\n-- all sites, indexes\n%s;\n```\n</details>\n\n",
		pgIndexSQL("day"), pgIndexSQL("month"), pgCurveSQL, pgCurveScanSQL, pgIndexScanSQL)
	w("<details><summary>The ClickHouse queries (one site shown)</summary>\n\n```sql\n")
	for _, sc := range scenarios("B0500", r.spec.Year) {
		w("-- %s\n%s;\n\n", sc.name, strings.TrimSpace(sc.sql))
	}
	for _, s := range r.scans {
		w("-- %s\n%s;\n\n", s.label, s.chSQL)
	}
	w("```\n</details>\n\n")
	w("%s\n", ratioLine(r.requests, r.scans))
	return b.String()
}

// loadBound says what bounds ClickHouse's load: its INSERTs' and OPTIMIZEs' own CPU spread over
// the machine's cores is a time no client can beat, set beside a third of PostgreSQL's load.
func loadBound(c loadCost, pgLoad time.Duration, cores, note string) string {
	if !c.ServerCPUsOK {
		return ""
	}
	n, err := strconv.Atoi(cores)
	if err != nil || n < 1 {
		n = runtime.NumCPU()
	}
	floor := (c.InsertCPU + c.OptimizeCPU) / float64(n)
	third := pgLoad.Seconds() / 3
	verdict := fmt.Sprintf("within the %.1f s that 3× PostgreSQL's speed allows: the rest is the client's CPU and the machine's other load", third)
	if floor > third {
		verdict = fmt.Sprintf("%.1f s more than the %.1f s that 3× PostgreSQL's speed allows", floor-third, third)
	}
	return fmt.Sprintf("What bounds ClickHouse's load%s, by its own accounting (`system.query_log`, CPU time of each query's threads, user + system): "+
		"the %d INSERTs of the readings took %.1f s of server CPU for %s rows (the by-site copy included), %s rows per CPU-second, and OPTIMIZE FINAL %.1f s; "+
		"the benchmark process (generating, encoding and sending the rows) used %.1f s of CPU beside them. Spread over %d cores, the server's work alone takes at least %.1f s "+
		"however fast the client, %s.\n\n",
		note, c.Inserts, c.InsertCPU, thousands(c.InsertRows), thousands(uint64(float64(c.InsertRows)/c.InsertCPU)), c.OptimizeCPU, c.LoaderCPU, n, floor, verdict)
}
