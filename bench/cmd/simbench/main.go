// Command simbench measures the tariff simulation (GET /v2/sites/{site-id}/fluids/elec/
// tariff-simulations) of 10 candidate tariffs over one site-year of 30-minute load curve:
// computed (the answer invalidated before each request, as a new reading does) and cached,
// full HTTP round trips over loopback against a ClickHouse it launches. make bench-simulation
// writes bench/results/simulation.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"energy/apidocs"
	"energy/bench"
	"energy/query/cache"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
)

const (
	tenant = "simbench"
	siteID = "SIM-1"
	// Targets of the tariff simulation on 2 cores.
	targetColdP50   = 100 * time.Millisecond
	targetCachedP50 = time.Millisecond
)

func main() {
	out := flag.String("out", "", "write the results table to this file (default: standard output)")
	dir := flag.String("dir", "var/bench-simulation", "directory of the ClickHouse the benchmark launches")
	year := flag.Int("year", 2025, "the simulated year")
	coldRuns := flag.Int("cold", 40, "computed requests (after a warm-up)")
	cachedRuns := flag.Int("cached", 2000, "cached requests")
	flag.Parse()
	if err := run(*out, *dir, *year, *coldRuns, *cachedRuns); err != nil {
		log.Fatal(err)
	}
}

func run(out, dir string, year, coldRuns, cachedRuns int) error {
	ctx := context.Background()
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	srv, err := server.StartLocal(ctx, filepath.Join(dir, "clickhouse"))
	if err != nil {
		return err
	}
	defer srv.Stop()
	boot, err := schema.Open(ctx, srv.DSN("default"), "")
	if err != nil {
		return err
	}
	if err := boot.Conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS simbench"); err != nil {
		return err
	}
	boot.Close()
	db, err := schema.Open(ctx, srv.DSN("simbench"), "")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx, nil); err != nil {
		return err
	}
	reg := registry.New(db)
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		return err
	}
	data, err := loadSimulationData(ctx, db, reg, year, loc)
	if err != nil {
		return err
	}

	cache.RefreshWindow = 0 // the computed runs time the request after a change, not a refresh ahead of it
	h, _ := apidocs.NewMain(apidocs.Config{Registry: reg, Ready: db.Ping})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(l) }()
	defer hs.Close()
	token, _, err := reg.CreateToken(ctx, tenant, []string{string(registry.ScopeRead)}, time.Hour, "simbench")
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s/v2/sites/%s/fluids/elec/tariff-simulations?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&tariffIds=%s",
		l.Addr(), siteID, year, year+1, strings.Join(data.candidates, ","))
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	get := func() (time.Duration, []byte, string, error) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, "", err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
		}
		return d, body, resp.Header.Get("X-Cache"), err
	}

	// Computed: each request follows an invalidation of the site's answers (what ingesting a
	// reading does), outside the timed request.
	var cold, cached []time.Duration
	var body []byte
	for i := -3; i < coldRuns; i++ {
		reg.Versions.Bump(tenant, siteID)
		d, b, xc, err := get()
		if err != nil {
			return err
		}
		if xc != "MISS" {
			return fmt.Errorf("computed run answered X-Cache %q", xc)
		}
		if i >= 0 {
			cold = append(cold, d)
		}
		body = b
	}
	for range cachedRuns {
		d, _, xc, err := get()
		if err != nil {
			return err
		}
		if xc != "HIT" {
			return fmt.Errorf("cached run answered X-Cache %q", xc)
		}
		cached = append(cached, d)
	}
	parts, err := measureParts(ctx, db, reg, year, loc, data.candidates, coldRuns)
	if err != nil {
		return err
	}
	return report(out, data, body, cold, cached, parts, year)
}

func report(out string, data *simulationData, body []byte, cold, cached []time.Duration, parts []part, year int) error {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	load, _ := os.ReadFile("/proc/loadavg")
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	coldP50, cachedP50 := bench.Percentile(cold, 50), bench.Percentile(cached, 50)
	mark := func(ok bool) string {
		if ok {
			return "✅"
		}
		return "❌"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Tariff simulation\n\n`go run ./bench/cmd/simbench` (`make bench-simulation`), %s UTC, commit %s. Machine: %d cores; "+
		"load average at the end %s (the machine was shared with other jobs during this run: with a load average above the 2 cores every figure is inflated, an upper bound); %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), strings.TrimSpace(string(commit)), runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:3], " "), runtime.Version())
	fmt.Fprintf(&b, "Data: one site in Europe/Paris on an HPHC 9 kVA contract, %d: %d load-curve points of 30 minutes, %d daily max powers, "+
		"a Tempo calendar of %d dates; %d candidate tariffs (%s) plus the site's own. The site's two-dial indexes cannot price the "+
		"TEMPO and other-schedule candidates, so every candidate is priced from the load curve, in one pass over the points. The answer is %.1f KiB.\n\n",
		year, data.points, data.maxPowers, data.colourDays, len(data.candidates), strings.Join(data.candidates, ", "), float64(len(body))/1024)
	fmt.Fprintf(&b, "Full HTTP round trip over loopback. *Computed*: %d requests after 3 warm-ups, each after the site's answers were invalidated "+
		"(as a new reading does): the max powers and the load curve read from ClickHouse at once (TEMPO's schedule rules the indexes out, so they are not read), the points split and priced under the 11 tariffs. *Cached*: %d requests.\n\n",
		len(cold), len(cached))
	fmt.Fprintf(&b, "| request | computed p50 | computed p90 | computed max | cached p50 | cached p99 |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| 10 candidates, 1 site-year of 30-min load curve | %s | %s | %s | %s | %s |\n\n",
		ms(coldP50), ms(bench.Percentile(cold, 90)), ms(bench.Percentile(cold, 100)), ms(cachedP50), ms(bench.Percentile(cached, 99)))
	fmt.Fprintf(&b, "Where the computed time goes, measured in process alone (%d runs each, p50):\n\n| part | p50 | p90 |\n|---|---:|---:|\n", len(parts[0].runs))
	for _, p := range parts {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.name, ms(bench.Percentile(p.runs, 50)), ms(bench.Percentile(p.runs, 90)))
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "Targets (2 cores): computed p50 ≤ %v %s, cached p50 ≤ %v %s.\n",
		targetColdP50, mark(coldP50 <= targetColdP50), targetCachedP50, mark(cachedP50 <= targetCachedP50))
	if out == "" {
		_, err := os.Stdout.WriteString(b.String())
		return err
	}
	fmt.Print(b.String())
	return os.WriteFile(out, []byte(b.String()), 0o644)
}
