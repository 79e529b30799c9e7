package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"energy/bench"
	"energy/schema/registry"
)

// targetMixedP99 bounds a read's p99 while archives are ingested, as a multiple of its p99 on
// the idle service measured in the same run.
const targetMixedP99 = 1.5

// targetTouchedHits is the least share of cache hits among the polls of the sites the ingest
// writes to, under ingest: their answers are refreshed ahead of the next poll.
const targetTouchedHits = 0.99

// mixedOptions size the reads-during-ingest run (make bench-mixed).
type mixedOptions struct {
	readSites       int           // sites × one year of the consumption data set the dashboards read
	phase           time.Duration // length of the idle phase and of the ingest phase
	uploaders       int           // concurrent uploaders (marketers), each replaying the largest archives
	computedClients int           // dashboards asking computed answers (result cache off)
	cachedClients   int           // dashboards asking cached answers
	computedEvery   time.Duration // each computed dashboard's poll interval
	cachedEvery     time.Duration // each cached dashboard's poll interval
	touchedClients  int           // dashboards polling cached answers of sites the uploads write to
	touchedEvery    time.Duration // each of those dashboards' poll interval
}

// readKind is one kind of dashboard read.
type readKind int

const (
	readComputed readKind = iota
	readCached
	readTouched
	readKinds
)

var (
	readKindNames = [...]string{"computed (cache off), DAYS of a random site's year", "cached, DAYS of one site's year",
		"cached, DAYS of a site the uploads write to (January to June 2025)"}
	readKindShorts = [...]string{"computed", "cached", "touched"}
)

// readStats is what the dashboards saw in one phase.
type readStats struct {
	latencies [readKinds][]time.Duration
	failed    [readKinds]int // transport errors and non-200 answers
	unexpect  [readKinds]int // 200 answers whose X-Cache was not the one the kind expects
}

// hitRatio is the share of a cached kind's answers that were HIT.
func (s *readStats) hitRatio(k readKind) float64 {
	if len(s.latencies[k]) == 0 {
		return 0
	}
	return 1 - float64(s.unexpect[k])/float64(len(s.latencies[k]))
}

// replayStats is the bookkeeping of the archives replayed during the ingest phase.
type replayStats struct {
	submitted, done, failed int
	rows                    int64
	jobTimes                []time.Duration // POST to DONE
	first, last             time.Time       // phase start, last job DONE
	errs                    []string        // the first few failures, for the report
}

// record adds one replayed archive's outcome.
func (r *replayStats) record(a *benchArchive, elapsed time.Duration, end time.Time, err error) {
	r.submitted++
	if err != nil {
		r.failed++
		if len(r.errs) < 3 {
			r.errs = append(r.errs, err.Error())
		}
		return
	}
	r.done++
	r.rows += int64(a.Rows)
	r.jobTimes = append(r.jobTimes, elapsed)
	if end.After(r.last) {
		r.last = end
	}
}

// rowsPerSecond is the rows stored by DONE jobs over the time from the phase start to the last
// job DONE: the rate the service sustained while it was read.
func (r *replayStats) rowsPerSecond() float64 {
	if r.done == 0 || !r.last.After(r.first) {
		return 0
	}
	return float64(r.rows) / r.last.Sub(r.first).Seconds()
}

func (r *replayStats) archivesPerSecond() float64 {
	if r.done == 0 || !r.last.After(r.first) {
		return 0
	}
	return float64(r.done) / r.last.Sub(r.first).Seconds()
}

// runMixed is --mixed: one energyd with its result cache takes the uploads and the cached
// reads, a second one on the same ClickHouse with its cache off serves the computed reads;
// dashboards poll both for a phase with no ingest, then for a phase in which uploaders replay
// the largest archives continuously.
func runMixed(ctx context.Context, o options) error {
	m := o.mixed
	tmp, archives, cleanup, err := prepare(ctx, &o, "bench-mixed-")
	if err != nil {
		return err
	}
	defer cleanup()
	dsn, db, stopStore, err := startStore(ctx, o, tmp)
	if err != nil {
		return err
	}
	defer stopStore()
	reg := registry.New(db)
	log.Printf("loading the dashboards' data: %d sites × one year", m.readSites)
	spec := bench.Spec{Sites: m.readSites, Year: readYear}
	if err := bench.Generate(ctx, db, reg, spec, nil); err != nil {
		return err
	}
	if err := bench.Optimize(ctx, db); err != nil {
		return err
	}
	if err := putSites(ctx, reg); err != nil {
		return err
	}
	log.Printf("starting energyd: one with its result cache (uploads, cached reads), one without (computed reads)")
	var profiling []string
	if o.pprof != "" {
		profiling = []string{"--pprof-listen", o.pprof}
	}
	api, stopA, err := startEnergyd(ctx, o, filepath.Join(tmp, "energyd-a"), dsn, profiling...)
	if err != nil {
		return err
	}
	defer stopA()
	apiCold, stopB, err := startEnergyd(ctx, o, filepath.Join(tmp, "energyd-b"), dsn, "--cache-entries", "0")
	if err != nil {
		return err
	}
	defer stopB()
	upToken, _, err := reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "bench-mixed")
	if err != nil {
		return err
	}
	readToken, _, err := reg.CreateToken(ctx, bench.Tenant, []string{"read"}, 24*time.Hour, "bench-mixed-dashboards")
	if err != nil {
		return err
	}
	if _, err := submitAndWait(ctx, api, upToken, warmupArchive()); err != nil {
		return fmt.Errorf("warm-up archive: %w", err)
	}
	d := &dashboards{m: m, client: &http.Client{Timeout: time.Minute}, token: readToken, touchedToken: upToken,
		computedURL: func(rng *rand.Rand) string { return apiCold + daysYearPath(bench.SiteID(rng.IntN(m.readSites))) },
		cachedURL:   api + daysYearPath(bench.SiteID(m.readSites/2)),
		touchedURL:  func(i int) string { id, _, _ := benchSite(i % sites); return api + touchedPath(id) }}
	if st, b, _, err := d.get(d.cachedURL, d.token); err != nil || st != http.StatusOK { // fills the cache
		return fmt.Errorf("cached read: %d %s %v", st, trim(b), err)
	}
	for i := range m.touchedClients {
		if st, b, _, err := d.get(d.touchedURL(i), d.touchedToken); err != nil || st != http.StatusOK {
			return fmt.Errorf("read of an uploaded site: %d %s %v", st, trim(b), err)
		}
	}
	var rt [3]goRuntime // at the start of the idle phase, between the phases, at the end
	if rt[0], err = readGoRuntime(d.client, api); err != nil {
		return err
	}
	log.Printf("idle phase: %s of reads", m.phase)
	idle := d.poll(ctx, m.phase, nil)
	if rt[1], err = readGoRuntime(d.client, api); err != nil {
		return err
	}
	log.Printf("ingest phase: %s of reads while %d uploaders replay the archives", m.phase, m.uploaders)
	replay := &replayStats{}
	loaded := d.poll(ctx, m.phase, func(stop <-chan struct{}) { replayArchives(ctx, api, upToken, archives, m.uploaders, stop, replay) })
	if rt[2], err = readGoRuntime(d.client, api); err != nil {
		return err
	}
	var version string
	if err := db.Conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return err
	}
	md := mixedMarkdown(machineHeader(version, o), m, idle, loaded, replay, archives, rt[1].since(rt[0]), rt[2].since(rt[1]))
	fmt.Print(md)
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	old, _ := os.ReadFile(o.out) // none yet: nothing to keep
	return os.WriteFile(o.out, []byte(keepProfiles(string(old), md)), 0o644)
}

// profilesHeading starts the part of the results written by hand from profiles of a run (with
// --pprof-listen): a new run rewrites the tables and keeps it.
const profilesHeading = "\n## Profiles"

// keepProfiles is md followed by old's profiles part, if it has one.
func keepProfiles(old, md string) string {
	if i := strings.Index(old, profilesHeading); i >= 0 {
		return md + old[i:]
	}
	return md
}

// readYear is the year of the dashboards' data set.
const readYear = 2024

func daysYearPath(site string) string {
	return fmt.Sprintf("/v2/sites/%s/fluids/elec/consumptions?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&stepUnit=DAYS", site, readYear, readYear+1)
}

// touchedPath is the days of the months the archives' readings fall in (January to April:
// indexes; June: load curves) of one of their sites.
func touchedPath(site string) string {
	return "/v2/sites/" + site + "/fluids/elec/consumptions?startTs=2025-01-01T00:00:00&endTs=2025-07-01T00:00:00&stepUnit=DAYS"
}

// dashboards poll the consumption endpoint.
type dashboards struct {
	m            mixedOptions
	client       *http.Client
	token        string // the dashboards' data set's tenant
	touchedToken string // the uploads' tenant
	computedURL  func(*rand.Rand) string
	cachedURL    string
	touchedURL   func(client int) string
}

func (d *dashboards) get(url, token string) (int, []byte, http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// poll runs the dashboards for the phase's length (and load beside them when not nil; load
// must return once stop is closed) and returns what they saw.
func (d *dashboards) poll(ctx context.Context, phase time.Duration, load func(stop <-chan struct{})) *readStats {
	stats := &readStats{}
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if load != nil {
		wg.Go(func() { load(stop) })
	}
	client := func(kind readKind, seed int, every time.Duration) {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(kind)))
		want := map[readKind]string{readComputed: "MISS", readCached: "HIT", readTouched: "HIT"}[kind]
		for next := time.Now(); ; next = next.Add(every) {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-time.After(time.Until(next)):
			}
			url, token := d.cachedURL, d.token
			switch kind {
			case readComputed:
				url = d.computedURL(rng)
			case readTouched:
				url, token = d.touchedURL(seed), d.touchedToken
			}
			start := time.Now()
			st, _, hdr, err := d.get(url, token)
			took := time.Since(start)
			mu.Lock()
			switch {
			case err != nil || st != http.StatusOK:
				stats.failed[kind]++
			case hdr.Get("X-Cache") != want:
				stats.unexpect[kind]++
				stats.latencies[kind] = append(stats.latencies[kind], took)
			default:
				stats.latencies[kind] = append(stats.latencies[kind], took)
			}
			mu.Unlock()
			if now := time.Now(); next.Add(every).Before(now) {
				next = now.Add(-every) // late: the next poll leaves at once, without a burst to catch up
			}
		}
	}
	for i := range d.m.computedClients {
		wg.Go(func() { client(readComputed, i, d.m.computedEvery) })
	}
	for i := range d.m.cachedClients {
		wg.Go(func() { client(readCached, i, d.m.cachedEvery) })
	}
	for i := range d.m.touchedClients {
		wg.Go(func() { client(readTouched, i, d.m.touchedEvery) })
	}
	select {
	case <-time.After(phase):
	case <-ctx.Done():
	}
	close(stop)
	wg.Wait()
	return stats
}

// replayArchives has n uploaders each submit the archives in turn (starting at a different one)
// and wait for the job, until stop is closed; a job under way then is waited for and counted.
func replayArchives(ctx context.Context, api, token string, archives []*benchArchive, n int, stop <-chan struct{}, r *replayStats) {
	var mu sync.Mutex
	r.first = time.Now()
	var wg sync.WaitGroup
	for u := range n {
		wg.Go(func() {
			for k := u; ; k++ {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				a := archives[k%len(archives)]
				j, err := submitAndWait(ctx, api, token, *a)
				mu.Lock()
				r.record(a, j.elapsed, time.Now(), err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func msOf(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/1e6)
}

// p99Ratio is a kind's p99 under ingest over its idle p99.
func p99Ratio(idle, loaded *readStats, k readKind) float64 {
	i := bench.Percentile(idle.latencies[k], 99)
	if i <= 0 {
		return 0
	}
	return float64(bench.Percentile(loaded.latencies[k], 99)) / float64(i)
}

// machineHeader is the machine and date lines of the ingest benchmark's header.
func machineHeader(chVersion string, o options) string {
	lines := strings.SplitN(machine(chVersion, o), "\n", 3)
	return lines[0] + "\n" + lines[1] + "\n"
}

func mixedMarkdown(machineLines string, m mixedOptions, idle, loaded *readStats, r *replayStats, archives []*benchArchive, rtIdle, rtLoaded goRuntime) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Reads during ingest\n\n")
	w("`make bench-mixed` (`go run ./bench/ingest --mixed`). Dashboards poll the consumption endpoint for %s with no ingest (idle), then for %s while %d uploaders "+
		"(marketers) replay the two largest archives the limits allow (%s) one after the other, each waiting for its job; then the tables.\n\n",
		m.phase, m.phase, m.uploaders, archiveNames(archives))
	w("%s", machineLines)
	w("- Dashboards' data: %s sites × one year (%d) of the consumption benchmark's generator. %d dashboards ask a computed answer (DAYS of a random site's year) every %s "+
		"from a second energyd on the same ClickHouse with its result cache off (`--cache-entries 0`); %d ask the cached DAYS-year answer of one site every %s from the energyd "+
		"that takes the uploads; %d poll the cached answer of one site each of those the uploads write to every %s (each archive writes to all %d, and moves their data versions: "+
		"the answers are refreshed ahead, and a poll that comes before the refresh has stored the new answer is a MISS). Latency: from sending the request to having read the whole body.\n\n",
		thousandsInt(m.readSites), readYear, m.computedClients, m.computedEvery, m.cachedClients, m.cachedEvery, m.touchedClients, m.touchedEvery, sites)
	w("| read | idle: requests | idle p50 | idle p99 | under ingest: requests | under ingest p50 | under ingest p99 | p99 under ingest / idle | cache hits under ingest | failed |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for k := range readKindNames {
		kind := readKind(k)
		failed := idle.failed[k] + loaded.failed[k]
		name := readKindNames[k]
		if u := idle.unexpect[k] + loaded.unexpect[k]; u > 0 && kind != readTouched {
			name += fmt.Sprintf(" (%d answers with another X-Cache)", u)
		}
		hits := "–"
		if kind != readComputed {
			hits = fmt.Sprintf("%.1f %%", 100*loaded.hitRatio(kind))
		}
		w("| %s | %d | %s | %s | %d | %s | %s | %.2f× | %s | %d |\n", name,
			len(idle.latencies[k]), msOf(bench.Percentile(idle.latencies[k], 50)), msOf(bench.Percentile(idle.latencies[k], 99)),
			len(loaded.latencies[k]), msOf(bench.Percentile(loaded.latencies[k], 50)), msOf(bench.Percentile(loaded.latencies[k], 99)),
			p99Ratio(idle, loaded, kind), hits, failed)
	}
	w("\nIngest during the reads: %d archives submitted, %d DONE with every operation OK, %d failed; %s rows stored; %s rows/s and %.2f archives/s sustained "+
		"(from the start of the phase to the last job DONE); POST → DONE p50 %.2f s, p99 %.2f s.\n",
		r.submitted, r.done, r.failed, thousands(float64(r.rows)), thousands(r.rowsPerSecond()), r.archivesPerSecond(),
		bench.Percentile(r.jobTimes, 50).Seconds(), bench.Percentile(r.jobTimes, 99).Seconds())
	for _, e := range r.errs {
		w("\nFailure: %s\n", e)
	}
	w("\nWhere the uploads' energyd spent the reads' waiting time, from its Go runtime (`%s` and `%s` on /metrics, read before and after each phase; "+
		"those histograms have about one bucket per factor of 10, so the table counts what lasted longer than the bounds nearest 1, 10 and 100 ms). "+
		"A goroutine waits for a processor while others run on every one (Go runs GOMAXPROCS at once); "+
		"a stop-the-world pause stops every goroutine, requests included.\n\n%s",
		schedWaitsFamily, gcPausesFamily, runtimeMarkdown(rtIdle, rtLoaded))
	failed := r.failed
	var parts []string
	for k := range readKindNames {
		failed += idle.failed[k] + loaded.failed[k]
		if readKind(k) == readTouched {
			h := loaded.hitRatio(readTouched)
			parts = append(parts, fmt.Sprintf("cache hits polling the uploaded sites under ingest ≥ %.0f %% %s (%.1f %%)", 100*targetTouchedHits, mark(h >= targetTouchedHits), 100*h))
			continue
		}
		ratio := p99Ratio(idle, loaded, readKind(k))
		parts = append(parts, fmt.Sprintf("%s read p99 under ingest ≤ %.1f× idle %s (%.2f×)", readKindShorts[k], targetMixedP99, mark(ratio > 0 && ratio <= targetMixedP99), ratio))
	}
	parts = append(parts, fmt.Sprintf("no failed request %s (%d)", mark(failed == 0), failed))
	w("\nTargets: %s.\n\nReproduce: `make bench-mixed` (flags: `go run ./bench/ingest --help`).\n", strings.Join(parts, "; "))
	return b.String()
}

func archiveNames(archives []*benchArchive) string {
	var names []string
	for _, a := range archives {
		names = append(names, fmt.Sprintf("%s: %s rows", a.Name, thousands(float64(a.Rows))))
	}
	return strings.Join(names, "; ")
}

func thousandsInt(n int) string { return thousands(float64(n)) }
