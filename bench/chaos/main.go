// Command chaos measures what survives crashes: energyd (with its embedded ClickHouse, on
// loopback) under continuous archive submission and job reads is killed with SIGKILL at
// random instants, --trials times, and restarted each time; then its ClickHouse is frozen
// (SIGSTOP) and later killed under the same load. It reports the statuses clients saw, the
// times to recover, and, once every job has ended, archives accepted / lost / duplicated
// (exact rows and Wh per archive). It exits 1 when anything was lost or duplicated.
//
//	go run ./bench/chaos [--trials 20] [--stall 15s] [--seed 1] [--keep]
//	go run ./bench/chaos --restart-after 10,100,1000   # start time as jobs accumulate
//	[--out bench/results/chaos.md]                     # the output as a markdown results file
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"energy/bench/daemon"
	"energy/schema/registry"
)

type options struct {
	trials       int
	stall        time.Duration
	seed         uint64
	energyd      string
	port         int
	keep         bool
	queryTimeout string
	restartAfter string
	out          string
}

func main() {
	var o options
	flag.IntVar(&o.trials, "trials", 20, "kill -9 trials of energyd")
	flag.DurationVar(&o.stall, "stall", 15*time.Second, "how long the embedded ClickHouse is frozen (under the 30 s after which energyd kills a frozen one)")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "seed of the random kill instants")
	flag.StringVar(&o.energyd, "energyd", "", "energyd binary (default: built from ./cmd/energyd)")
	flag.IntVar(&o.port, "port", 0, "loopback port of energyd's API (default: a free one)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (data dir, energyd log)")
	flag.StringVar(&o.queryTimeout, "query-timeout", "3s", "energyd --query-timeout: how long a read waits for a frozen store")
	flag.StringVar(&o.restartAfter, "restart-after", "", "instead of the trials: comma-separated job counts (10,100,1000) after which energyd is killed and its start timed")
	flag.StringVar(&o.out, "out", "", "markdown file the run's output is written to as well (make chaos: bench/results/chaos.md, make bench-restart: bench/results/restart.md)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("chaos: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		log.Fatal(err)
	}
}

// env is a running energyd on a temporary data dir and a tenant's token.
type env struct {
	d     *daemon.Daemon
	e     *daemon.Process
	token string
}

// check is check on the store energyd runs now.
func (ev *env) check(ctx context.Context, l *ledger, wait time.Duration) (verdict, error) {
	db, err := ev.d.Store(ctx)
	if err != nil {
		return verdict{}, err
	}
	defer db.Close()
	return check(ctx, db, l, wait)
}

func run(ctx context.Context, o options) error {
	d, cleanup, err := daemon.New(ctx, daemon.Setup{Name: "chaos", Energyd: o.energyd, Port: o.port, Keep: o.keep,
		Extra: []string{"--query-timeout", o.queryTimeout}})
	if err != nil {
		return err
	}
	defer cleanup()
	ev, err := startEnv(ctx, d)
	if err != nil {
		return err
	}
	defer func() { ev.e.Stop() }()
	rep := &report{}
	if o.restartAfter != "" {
		if err := restartGrowth(ctx, ev, o.restartAfter, rep); err != nil {
			return err
		}
		return rep.write(o.out, "Restart time as jobs accumulate", "go run ./bench/chaos --restart-after "+o.restartAfter)
	}
	err = trials(ctx, ev, o, rep)
	if werr := rep.write(o.out, "Crash trials", fmt.Sprintf("go run ./bench/chaos --trials %d", o.trials)); err == nil {
		err = werr
	}
	return err
}

// startEnv starts energyd on a fresh data dir and creates the tenant, its token and its site
// through the store energyd launched.
func startEnv(ctx context.Context, d *daemon.Daemon) (*env, error) {
	e, err := d.Start()
	if err != nil {
		return nil, err
	}
	st, err := d.WaitReady(ctx, e, 2*time.Minute)
	if err != nil {
		e.Stop()
		return nil, err
	}
	log.Printf("energyd ready in %.2f s (embedded ClickHouse after %.2f s); API %s", st.Ready.Seconds(), st.ClickHouse.Seconds(), d.API)
	ev := &env{d: d, e: e}
	db, err := d.Store(ctx)
	if err != nil {
		e.Stop()
		return nil, err
	}
	defer db.Close()
	reg := registry.New(db)
	token, _, err := reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "chaos")
	if err == nil {
		err = reg.PutSite(ctx, registry.Site{TenantID: tenant, SiteID: site})
	}
	if err != nil {
		e.Stop()
		return nil, err
	}
	ev.token = token
	return ev, nil
}

// restart kills energyd with SIGKILL and starts it again; it returns how long the start took.
func (ev *env) restart(ctx context.Context) (daemon.Startup, error) {
	ev.e.Kill9()
	e, err := ev.d.Start()
	if err != nil {
		return daemon.Startup{}, err
	}
	ev.e = e
	return ev.d.WaitReady(ctx, e, 2*time.Minute)
}

func trials(ctx context.Context, ev *env, o options, rep *report) error {
	rng := rand.New(rand.NewPCG(o.seed, 0))
	l := newLedger()
	ld := &load{api: ev.d.API, token: ev.token, ledger: l, client: &http.Client{Timeout: 30 * time.Second}}
	lctx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	const phaseKills = "kill -9 of energyd"
	l.setPhase(phaseKills)
	wg := ld.run(lctx, 2, 1, 50*time.Millisecond)

	rep.printf("chaos: %d kill -9 trials of energyd during continuous submission (2 submitters, 1 reader; seed %d)\n", o.trials, o.seed)
	var starts []daemon.Startup
	for i := 1; i <= o.trials; i++ {
		after := time.Duration(200+rng.IntN(2300)) * time.Millisecond
		sleep(ctx, after)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		l.mu.Lock()
		accepted := len(l.accepted)
		l.mu.Unlock()
		st, err := ev.restart(ctx)
		if err != nil {
			return fmt.Errorf("trial %d: %w", i, err)
		}
		starts = append(starts, st)
		rep.printf("trial %2d: killed %.2f s into the load (%4d archives accepted so far); restarted: ClickHouse up %.2f s, ready %.2f s\n",
			i, after.Seconds(), accepted, st.ClickHouse.Seconds(), st.Ready.Seconds())
	}
	sleep(ctx, 2*time.Second)

	// A frozen store: SIGSTOP on the ClickHouse energyd launched, then SIGCONT.
	const phaseStall = "ClickHouse frozen"
	l.setPhase(phaseStall)
	pid, err := ev.e.ClickHousePid()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	frozen := time.Now()
	noticed := waitStatus(ctx, ev.d.API+"/readyz", http.StatusServiceUnavailable, o.stall)
	sleep(ctx, o.stall-time.Since(frozen))
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return err
	}
	thawed := time.Now()
	recovered := waitRead(ctx, ld, time.Minute)
	stallRecovery := time.Since(thawed)
	sleep(ctx, 2*time.Second)

	// A dead store: SIGKILL on the ClickHouse energyd launched; energyd starts it again.
	const phaseKill = "ClickHouse killed"
	l.setPhase(phaseKill)
	if pid, err = ev.e.ClickHousePid(); err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	killed := time.Now()
	restarted := waitRead(ctx, ld, 2*time.Minute)
	killRecovery := time.Since(killed)
	sleep(ctx, 2*time.Second)
	const phaseAfter = "after recovery"
	l.setPhase(phaseAfter)
	sleep(ctx, 2*time.Second)
	stopLoad()
	wg.Wait()

	v, err := ev.check(ctx, l, 3*time.Minute)
	if err != nil {
		return err
	}
	rep.printf("\n")
	rep.printf("%-22s %-12s %s\n", "phase", "requests", "statuses seen")
	for _, p := range []string{phaseKills, phaseStall, phaseKill, phaseAfter} {
		for _, k := range []string{"submissions", "reads"} {
			rep.printf("%-22s %-12s %s\n", p, k, l.statusLine(p, k))
		}
	}
	rep.printf("\n")
	rep.printf("restarts after kill -9: ClickHouse up in %s s, ready in %s s (first → last trial)\n", spread(starts, true), spread(starts, false))
	rep.printf("ClickHouse frozen %s: /readyz 503 after %s; reads 200 again %.2f s after SIGCONT%s\n",
		o.stall, seconds(noticed), stallRecovery.Seconds(), notIf(!recovered))
	rep.printf("ClickHouse killed: reads 200 again %.2f s after the kill%s\n", killRecovery.Seconds(), notIf(!restarted))
	rep.printf("archives: sent %d, accepted (200) %d, lost %d, duplicated %d (rows %d, jobs %d), still queued %d; not answered but stored whole %d, stored in part %d\n",
		v.sent, v.accepted, len(v.lost), v.duplicatedRows+v.duplicatedJobs, v.duplicatedRows, v.duplicatedJobs, v.queued, v.unansweredStored, v.partial)
	rep.printf("stored: %d rows, %d Wh (each archive's %d rows and Wh checked)\n", v.rows, v.wh, readingsPerArchive)
	for _, x := range v.lost {
		rep.printf("lost: %s\n", x)
	}
	if len(v.lost) > 0 || v.duplicatedRows+v.duplicatedJobs > 0 || v.partial > 0 || v.queued > 0 || !recovered || !restarted {
		return errors.New("FAILED: see above")
	}
	rep.printf("PASS\n")
	return nil
}

// restartGrowth times energyd's start after kill -9 as jobs accumulate.
func restartGrowth(ctx context.Context, ev *env, counts string, rep *report) error {
	l := newLedger()
	ld := &load{api: ev.d.API, token: ev.token, ledger: l, client: &http.Client{Timeout: 30 * time.Second}}
	rep.printf("%-8s %-14s %-38s %s\n", "jobs", "parts on disk", "ClickHouse up (s), 3 restarts", "ready (s), 3 restarts")
	for _, c := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("--restart-after: %q is not a number", c)
		}
		lctx, stopLoad := context.WithCancel(ctx)
		wg := ld.run(lctx, 4, 0, 0)
		for ctx.Err() == nil {
			l.mu.Lock()
			done := len(l.accepted) >= n
			l.mu.Unlock()
			if done {
				break
			}
			sleep(ctx, 50*time.Millisecond)
		}
		stopLoad()
		wg.Wait()
		if _, err := ev.check(ctx, l, 5*time.Minute); err != nil {
			return err
		}
		parts := partsOnDisk(ev.d.DataDir)
		var runs []daemon.Startup
		for range 3 {
			st, err := ev.restart(ctx)
			if err != nil {
				return err
			}
			runs = append(runs, st)
		}
		l.mu.Lock()
		accepted := len(l.accepted)
		l.mu.Unlock()
		rep.printf("%-8d %-14d %-38s %s\n", accepted, parts, spread(runs, true), spread(runs, false))
	}
	return nil
}

// partsOnDisk counts the MergeTree part directories under energyd's embedded ClickHouse, merged
// away or not: what the server loads when it starts.
func partsOnDisk(dataDir string) int {
	tables, _ := filepath.Glob(filepath.Join(dataDir, "clickhouse", "data", "data", "*", "*"))
	n := 0
	for _, t := range tables {
		entries, _ := os.ReadDir(t)
		for _, e := range entries {
			if e.IsDir() && e.Name() != "detached" {
				n++
			}
		}
	}
	return n
}

// waitStatus polls url until it answers want; it returns how long that took (-1: not within).
func waitStatus(ctx context.Context, url string, want int, within time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < within && ctx.Err() == nil {
		if daemon.Status(ctx, url) == want {
			return time.Since(start)
		}
		sleep(ctx, 50*time.Millisecond)
	}
	return -1
}

// waitRead polls a job listing until it answers 200.
func waitRead(ctx context.Context, ld *load, within time.Duration) bool {
	start := time.Now()
	for time.Since(start) < within && ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, ld.api+"/v2/smt-jobs?size=1", nil)
		req.Header.Set("Authorization", "Bearer "+ld.token)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		sleep(ctx, 50*time.Millisecond)
	}
	return false
}

// spread is "a–b" of the startup times, first to last.
func spread(s []daemon.Startup, clickhouse bool) string {
	pick := func(x daemon.Startup) float64 {
		if clickhouse {
			return x.ClickHouse.Seconds()
		}
		return x.Ready.Seconds()
	}
	if len(s) == 0 {
		return "-"
	}
	lo, hi := pick(s[0]), pick(s[0])
	for _, x := range s {
		lo, hi = min(lo, pick(x)), max(hi, pick(x))
	}
	return fmt.Sprintf("%.2f→%.2f (min %.2f, max %.2f)", pick(s[0]), pick(s[len(s)-1]), lo, hi)
}

func seconds(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func notIf(failed bool) string {
	if failed {
		return " — NOT RECOVERED"
	}
	return ""
}
