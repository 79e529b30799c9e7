package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"energy/bench"
	"energy/schema"
)

// Targets on a 2-core machine (issue 4).
const (
	targetColdP50    = 50 * time.Millisecond
	targetColdVsSQL  = 2.0
	targetCachedP50  = time.Millisecond
	targetCachedPerS = 5000
)

type scenarioResult struct {
	scenario
	cold, cached      []time.Duration
	sql               []time.Duration // direct SQL, rows delivered to clickhouse-client (judged)
	sqlNull           []time.Duration // direct SQL with FORMAT Null: server only (shown, not judged)
	sqlBytes, sqlRows int64           // TabSeparated output of one delivered query
	chCalls           int64           // ClickHouse calls made by the computed requests
	chNanos           float64         // their summed duration (calls of one request may overlap)
	bodyBytes         int
	totalWh           float64
	statuses          string
}

type report struct {
	spec                   bench.Spec
	opts                   options
	loadTime, optimizeTime time.Duration
	points, indexes        uint64
	diskBytes              uint64
	clickhouseVersion      string
	scenarios              []*scenarioResult
	loads                  []loadResult
}

// loadTimesFile keeps how long the data set took to load, for the runs that reuse it.
const loadTimesFile = "dataset-load.json"

type loadTimes struct {
	LoadSeconds, OptimizeSeconds float64
	Sites, Year                  int
}

func (r *report) saveLoadTimes(dir string) {
	b, _ := json.Marshal(loadTimes{r.loadTime.Seconds(), r.optimizeTime.Seconds(), r.spec.Sites, r.spec.Year})
	if err := os.WriteFile(filepath.Join(dir, loadTimesFile), b, 0o644); err != nil {
		logf("keep load times: %v", err)
	}
}

func (r *report) readLoadTimes(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, loadTimesFile))
	var lt loadTimes
	if err != nil || json.Unmarshal(b, &lt) != nil || lt.Sites != r.spec.Sites || lt.Year != r.spec.Year {
		return
	}
	r.loadTime = time.Duration(lt.LoadSeconds * float64(time.Second))
	r.optimizeTime = time.Duration(lt.OptimizeSeconds * float64(time.Second))
}

func (r *report) describeData(ctx context.Context, db *schema.DB) error {
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM load_curve_points WHERE tenant_id = ?", bench.Tenant).Scan(&r.points); err != nil {
		return err
	}
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM elec_indexes WHERE tenant_id = ?", bench.Tenant).Scan(&r.indexes); err != nil {
		return err
	}
	if err := db.Conn.QueryRow(ctx, "SELECT sum(bytes) FROM system.parts WHERE active AND database = currentDatabase() AND table IN ('load_curve_points', 'elec_indexes')").Scan(&r.diskBytes); err != nil {
		return err
	}
	return db.Conn.QueryRow(ctx, "SELECT version()").Scan(&r.clickhouseVersion)
}

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/1e6)
}

func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func nproc() string {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return fmt.Sprint(runtime.NumCPU())
	}
	return strings.TrimSpace(string(out))
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func (r *report) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("### Consumption\n\n")
	w("`go run ./bench/cmd/consbench` (`make bench`), %s. Machine: %s cores, %s; load average at the end %s; Go %s, ClickHouse %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), nproc(), cpuModel(), loadAverage(), strings.TrimPrefix(runtime.Version(), "go"), r.clickhouseVersion)
	w("Data: %s sites × one year (%d, Europe/Paris) of 30-minute load curves and daily smart indexes (HPHC, two dials, consistent with the curve): "+
		"%s load-curve points, %s index rows, %.0f MiB on disk", thousands(uint64(r.spec.Sites)), r.spec.Year, thousands(r.points), thousands(r.indexes), float64(r.diskBytes)/(1<<20))
	if r.loadTime > 0 {
		w("; generated and bulk-loaded with column-wise PrepareBatch (sites through the registry) in %.1f s (%s rows/s), then OPTIMIZE … FINAL in %.1f s", r.loadTime.Seconds(),
			thousands(uint64(float64(r.points+r.indexes)/r.loadTime.Seconds())), r.optimizeTime.Seconds())
	}
	w(".\n\n")
	w("One site over one year, full HTTP round trip over loopback (auth, parsing, engine or cache, JSON body read by the client). "+
		"*Computed*: cache bypassed, %d runs after a warm-up. *Cached*: %d runs. *Direct SQL*: the same aggregation written by hand "+
		"(winning index per dial and timestamp by argMax of the generation, no FINAL, like the engine; index differences summed per local step; for HOURS the load-curve energy per hour "+
		"split HC/HP), run %d times in `clickhouse-client --time` sessions (elapsed time the client reports per query, client start-up excluded) in two ways: "+
		"*rows delivered*, as a user runs it: the client's default output format (TabSeparated), every row received and written to a pipe that discards it; "+
		"*server only*: the same query with `FORMAT Null`, computed by the server and nothing sent back. "+
		"Computed requests, delivered SQL and server-only SQL alternate in %d rounds so that other load on the machine weighs on all three. "+
		"*ClickHouse per computed answer*: calls the service made (readings or load curve; site and tariff when their 5-s cache missed; concurrent ones overlap) and their summed time, mean per answer.\n\n",
		r.opts.runs, r.opts.cachedRuns, r.opts.runs, rounds)
	w("The 2× target is judged on the direct SQL with rows delivered: the endpoint's time includes delivering its answer over HTTP (the client reads the whole JSON body), " +
		"so the comparable direct figure must include delivering the rows. The server-only column is shown so that nothing is hidden; it is not what a user of clickhouse-client waits for.\n\n")
	w("| request | items | body | computed p50 | computed p99 | direct SQL p50 | direct SQL p99 | SQL output | computed / SQL | server only p50 | server only p99 | computed / server only | ClickHouse per computed answer | cached p50 | cached p99 |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.scenarios {
		c50, s50, n50 := percentile(s.cold, 50), percentile(s.sql, 50), percentile(s.sqlNull, 50)
		perAnswer := "-"
		if n := len(s.cold); n > 0 {
			perAnswer = fmt.Sprintf("%.1f calls, %s", float64(s.chCalls)/float64(n), ms(time.Duration(s.chNanos/float64(n))))
		}
		w("| %s | %d | %.0f KiB | %s | %s | %s | %s | %d rows, %s TSV | %.1f× | %s | %s | %.1f× | %s | %s | %s |\n", s.label, s.items, float64(s.bodyBytes)/1024,
			ms(c50), ms(percentile(s.cold, 99)), ms(s50), ms(percentile(s.sql, 99)), s.sqlRows, kib(s.sqlBytes), ratio(c50, s50),
			ms(n50), ms(percentile(s.sqlNull, 99)), ratio(c50, n50), perAnswer, ms(percentile(s.cached, 50)), ms(percentile(s.cached, 99)))
	}
	w("\nCached throughput: %d concurrent keep-alive clients over loopback on the same 2 cores as the server, bounded by %s and %s requests; "+
		"a Go load generator in the benchmark process, and wrk (2 threads, same connections) when installed.\n\n", r.opts.concurrency, r.opts.loadDuration, thousands(uint64(r.opts.loadRequests)))
	w("| request | body | requests | Go generator req/s | p50 | p99 | wrk req/s | wrk p50 | wrk p99 |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range r.loads {
		wr, w50, w99 := "-", "-", "-"
		if l.wrk != nil {
			wr, w50, w99 = fmt.Sprintf("%.0f", l.wrk.perSecond), l.wrk.p50, l.wrk.p99
			if l.wrk.errors != "" {
				wr += " (" + l.wrk.errors + " non-2xx)"
			}
		}
		body := 0
		for _, s := range r.scenarios {
			if s.name == l.scenario.name {
				body = s.bodyBytes
			}
		}
		w("| %s | %.0f KiB | %s | %.0f | %s | %s | %s | %s | %s |\n", l.scenario.label, float64(body)/1024, thousands(uint64(l.requests)), l.perSecond(),
			ms(percentile(l.latencies, 50)), ms(percentile(l.latencies, 99)), wr, w50, w99)
	}
	w("\nTargets (2 cores): ")
	var parts []string
	for _, s := range r.scenarios {
		c50, s50 := percentile(s.cold, 50), percentile(s.sql, 50)
		parts = append(parts, fmt.Sprintf("%s computed p50 ≤ 50 ms %s and ≤ 2× direct SQL with rows delivered %s, cached p50 ≤ 1 ms %s", s.name,
			mark(c50 <= targetColdP50), mark(float64(c50) <= targetColdVsSQL*float64(s50)), mark(percentile(s.cached, 50) <= targetCachedP50)))
	}
	for _, l := range r.loads {
		best := l.perSecond()
		if l.wrk != nil && l.wrk.perSecond > best {
			best = l.wrk.perSecond
		}
		parts = append(parts, fmt.Sprintf("%s ≥ 5,000 cached req/s %s", l.scenario.name, mark(best >= targetCachedPerS)))
	}
	w("%s.\n", strings.Join(parts, "; "))
	w("\nThe direct SQL is what a data team would write against the raw tables: the latest generation per (dial, ts) or per point by argMax, " +
		"then the aggregation per step. Not FINAL: on 18.16 it makes the DAYS query ≈ 5× slower (56 ms against 10-19 ms measured on this data set). " +
		"It is a little simpler than the engine, which favours it: smart-meter natures only, no removal of invalidated readings, no meter change, " +
		"one point of delivery (the data set holds none of these cases), no interpolation at step boundaries, no cost, quality or flags. " +
		"`clickhouse-client --time` reports whole milliseconds. The queries, as run (followed by `;` when delivered, by ` FORMAT Null;` for the server-only column):\n")
	for _, s := range r.scenarios {
		w("\n<details><summary>%s</summary>\n\n```sql\n%s\n```\n</details>\n", s.label, strings.TrimSpace(s.scenario.sql))
	}
	return b.String()
}

// kib is a size in KiB, with a decimal below 10 KiB so that a small output does not read 0.
func kib(n int64) string {
	if n < 10*1024 {
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/1024)
}

// ratio is a/b, guarded against a zero b.
func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, time.Microsecond)) }

func thousands(n uint64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
