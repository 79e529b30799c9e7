package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"energy/apidocs"
	"energy/bench"
	"energy/query/cache"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/registry"
)

// targetScaleGrowth bounds how much a computed answer's p50 may grow from the smallest fleet to
// the largest: a site's range must stay a narrow scan whatever the number of sites.
const targetScaleGrowth = 1.3

// scaleSize is what one fleet size measured.
type scaleSize struct {
	report   *report // data set: sites, rows, disk, load times
	requests []*scaleRequest
	elapsed  time.Duration // the whole size: start, load when absent, measurements
}

// scaleRequest is one request kind at one fleet size.
type scaleRequest struct {
	name, label  string
	cold, cached []time.Duration
	logged       queryLogStats
}

// parseSizes reads --scale: fleet sizes, comma-separated, each at least 1, in increasing order.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--scale: %q is not a number of sites ≥ 1", f)
		}
		if len(sizes) > 0 && n <= sizes[len(sizes)-1] {
			return nil, fmt.Errorf("--scale: sizes must increase (%d after %d)", n, sizes[len(sizes)-1])
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// runScale is --scale (make bench-scale): the consumption requests on data sets of several
// fleet sizes, each generated once under its own directory and kept, one size after the other
// (one ClickHouse at a time), then one table of how latency and ClickHouse's work per request
// grow with the fleet.
func runScale(ctx context.Context, o options) error {
	if o.dsn != "" {
		return errors.New("--scale launches a ClickHouse per size under --scale-dir; --clickhouse-dsn is not supported with it")
	}
	sizes, err := parseSizes(o.scale)
	if err != nil {
		return err
	}
	var measured []*scaleSize
	for _, n := range sizes {
		so := o
		so.sites, so.dir = n, filepath.Join(o.scaleDir, strconv.Itoa(n))
		logf("=== %d sites (data under %s)", n, so.dir)
		size, err := measureSize(ctx, so)
		if err != nil {
			return fmt.Errorf("%d sites: %w", n, err)
		}
		measured = append(measured, size)
	}
	return writeResults(o.out, scaleMarkdown(o, measured, gitCommit()))
}

// measureSize opens (or generates) one size's data set and measures every request kind on it:
// cold on a random site of the fleet per request (result cache off), cached on one site, then
// ClickHouse's work per cold request from system.query_log.
func measureSize(ctx context.Context, o options) (*scaleSize, error) {
	start := time.Now()
	r := &report{spec: bench.Spec{Sites: o.sites, Year: o.year}, opts: o}
	ds, closeAll, err := openDataSet(ctx, o, r)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	// The service's own connection logs its queries, so that system.query_log tells what each
	// request made ClickHouse read.
	edb, err := schema.OpenWithTimeouts(ctx, withSetting(ds.dsn, "log_queries", "1"), "", benchTimeouts)
	if err != nil {
		return nil, err
	}
	defer edb.Close()
	reg := registry.New(edb)
	engine := consumption.NewEngine(edb, reg, consumption.DefaultCarbonCoefficient)
	coldURL, cachedURL, token, stop, err := serveColdAndCached(ctx, reg,
		apidocs.Config{Registry: reg, Ready: edb.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, 0, 0)},
		apidocs.Config{Registry: reg, Ready: edb.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, cache.DefaultEntries, cache.DefaultBytes)})
	if err != nil {
		return nil, err
	}
	defer stop()
	client := newClient(4)
	rng := rand.New(rand.NewPCG(uint64(o.year), uint64(o.sites)))
	randomSite := func() string { return bench.SiteID(rng.IntN(o.sites)) }
	size := &scaleSize{report: r}
	for _, sc := range scenarios(bench.SiteID(o.sites/2), o.year) {
		req := &scaleRequest{name: sc.name, label: sc.label}
		res := &scenarioResult{scenario: sc}
		if err := check(client, coldURL+sc.path, token, sc, res); err != nil {
			return nil, err
		}
		if err := check(client, cachedURL+sc.path, token, sc, res); err != nil { // fills the cache
			return nil, err
		}
		logf("%s: %d computed requests on random sites, %d cached...", sc.name, o.runs, o.cachedRuns)
		for range o.runs {
			d, err := timeRequests(client, coldURL+scenarioNamed(scenarios(randomSite(), o.year), sc.name).path, token, 1, "MISS")
			if err != nil {
				return nil, err
			}
			req.cold = append(req.cold, d...)
		}
		if req.cached, err = timeRequests(client, cachedURL+sc.path, token, o.cachedRuns, "HIT"); err != nil {
			return nil, err
		}
		size.requests = append(size.requests, req)
	}
	logf("system.query_log: %d computed requests of each kind...", o.logRequests)
	windows := make([]logWindow, len(size.requests))
	for i, req := range size.requests {
		windows[i], err = inOwnSeconds(func() error {
			for range o.logRequests {
				if _, err := timeRequests(client, coldURL+scenarioNamed(scenarios(randomSite(), o.year), req.name).path, token, 1, "MISS"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := flushQueryLog(ctx, ds.db); err != nil {
		return nil, err
	}
	for i, req := range size.requests {
		if req.logged, err = loggedPerRequest(ctx, ds.db, windows[i], o.logRequests); err != nil {
			return nil, err
		}
	}
	size.elapsed = time.Since(start)
	return size, nil
}

// growth is a request's cold p50 at the largest size over its p50 at the smallest.
func growth(sizes []*scaleSize, k int) float64 {
	first, last := sizes[0].requests[k], sizes[len(sizes)-1].requests[k]
	return ratio(percentile(last.cold, 50), percentile(first.cold, 50))
}

func scaleMarkdown(o options, sizes []*scaleSize, commit string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("### Scale: how p50/p99 grow with the fleet\n\n")
	version := ""
	if len(sizes) > 0 {
		version = sizes[0].report.clickhouseVersion
	}
	w("`make bench-scale` (`go run ./bench/cmd/consbench --scale %s`), %s, commit %s. Machine: %s cores, %s; load average at the end %s; Go %s, ClickHouse %s.\n\n",
		o.scale, time.Now().UTC().Format("2006-01-02 15:04 MST"), commit, nproc(), cpuModel(), loadAverage(), strings.TrimPrefix(runtime.Version(), "go"), version)
	w("Data: the consumption benchmark's generator at each size (one year, %d, Europe/Paris, of 30-minute load curves and daily smart indexes per site), "+
		"one data set per size generated once under `%s/<sites>` and reused by later runs (load times are those of the run that generated it).\n\n", o.year, o.scaleDir)
	w("| sites | load-curve points | index rows | on disk | readings generated + loaded | rows/s | OPTIMIZE FINAL | this size's run |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		r := s.report
		load, rate, opt := "-", "-", "-"
		if r.loadTime > 0 {
			load = fmt.Sprintf("%.1f s", r.loadTime.Seconds())
			rate = thousands(uint64(float64(r.points+r.indexes) / r.loadTime.Seconds()))
			opt = fmt.Sprintf("%.1f s", r.optimizeTime.Seconds())
		}
		w("| %s | %s | %s | %.0f MiB | %s | %s | %s | %.0f s |\n", thousands(uint64(r.spec.Sites)), thousands(r.points), thousands(r.indexes),
			float64(r.diskBytes)/(1<<20), load, rate, opt, s.elapsed.Seconds())
	}
	w("\nOne site over one year, full HTTP round trip over loopback. *Computed*: result cache off, %d requests, each on a site drawn at random from the whole fleet. "+
		"*Cached*: %d requests of one site. *Read per request*: what `system.query_log` recorded for %d more computed requests on random sites "+
		"(every query the service made: readings, and the site directory's check of the tenant when one fell among them), per request.\n\n", o.runs, o.cachedRuns, o.logRequests)
	w("| sites | request | computed p50 | computed p99 | cached p50 | ClickHouse queries | read rows | read bytes | server time | computed p50 / smallest fleet's |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		for k, req := range s.requests {
			w("| %s | %s | %s | %s | %s | %.1f | %s | %s | %.1f ms | %.2f× |\n", thousands(uint64(s.report.spec.Sites)), req.label,
				ms(percentile(req.cold, 50)), ms(percentile(req.cold, 99)), ms(percentile(req.cached, 50)), req.logged.queries,
				thousands(uint64(req.logged.readRows+0.5)), kib(int64(req.logged.readBytes)), req.logged.durationMs,
				ratio(percentile(req.cold, 50), percentile(sizes[0].requests[k].cold, 50)))
		}
	}
	if len(sizes) > 1 {
		first, last := sizes[0].report.spec.Sites, sizes[len(sizes)-1].report.spec.Sites
		var parts []string
		for k, req := range sizes[0].requests {
			g := growth(sizes, k)
			parts = append(parts, fmt.Sprintf("%s %.2f× %s", req.name, g, mark(g <= targetScaleGrowth)))
		}
		w("\nTarget: from %s to %s sites, computed p50 grows by at most %.1f×: %s.\n", thousands(uint64(first)), thousands(uint64(last)), targetScaleGrowth, strings.Join(parts, "; "))
	}
	return b.String()
}
