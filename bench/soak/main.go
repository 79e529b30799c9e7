// Command soak holds energyd (with its embedded ClickHouse, on loopback) under mixed load for
// --duration: 2 readers of random consumption ranges, one archive every 2 s, and a poller of
// job states and listings. Every 5 s it reads energyd's RSS, goroutines, open files and result
// cache size from /metrics. It prints the figures and exits 1 when an answer was a 5xx, RSS
// passed the result cache bound + 150 MB, or goroutines or open files grew between the first
// and the last minute.
//
//	go run ./bench/soak [--duration 5m] [--cache-mb 256]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"energy/bench/daemon"
	"energy/ingest"
	"energy/schema/registry"
)

const (
	tenant = "soak"
	site   = "soak-site"
	// rssHeadroomMB is what RSS may hold beyond the result cache bound.
	rssHeadroomMB = 150
	// growthSlack is how many goroutines or open files the last minute may hold beyond the
	// first (connections of the pools come and go).
	growthSlack = 10
)

type options struct {
	duration time.Duration
	cacheMB  int
	energyd  string
	port     int
	keep     bool
	seed     uint64
}

func main() {
	var o options
	flag.DurationVar(&o.duration, "duration", 5*time.Minute, "how long the load runs")
	flag.IntVar(&o.cacheMB, "cache-mb", 256, "energyd --cache-mb: the result cache bound RSS is checked against")
	flag.StringVar(&o.energyd, "energyd", "", "energyd binary (default: built from ./cmd/energyd)")
	flag.IntVar(&o.port, "port", 0, "loopback port of energyd's API (default: a free one)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (data dir, energyd log)")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "seed of the random ranges")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("soak: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, o options) error {
	d, cleanup, err := daemon.New(ctx, daemon.Setup{Name: "soak", Energyd: o.energyd, Port: o.port, Keep: o.keep,
		Extra: []string{"--cache-mb", strconv.Itoa(o.cacheMB)}})
	if err != nil {
		return err
	}
	defer cleanup()
	e, err := d.Start()
	if err != nil {
		return err
	}
	defer e.Stop()
	if _, err := d.WaitReady(ctx, e, 2*time.Minute); err != nil {
		return err
	}
	db, err := d.Store(ctx)
	if err != nil {
		return err
	}
	reg := registry.New(db)
	token, _, err := reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "soak")
	if err == nil {
		err = reg.PutSite(ctx, registry.Site{TenantID: tenant, SiteID: site})
	}
	db.Close()
	if err != nil {
		return err
	}

	c := &client{api: d.API, token: token, http: &http.Client{Timeout: time.Minute}, stats: map[string]*kindStats{}}
	lctx, stopLoad := context.WithTimeout(ctx, o.duration)
	defer stopLoad()
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(o.seed, 1))
	var rngMu sync.Mutex
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lctx.Err() == nil {
				rngMu.Lock()
				q := randomRange(rng)
				rngMu.Unlock()
				c.get(lctx, "consumption", "/v2/sites/"+site+"/fluids/elec/consumptions?"+q)
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for day := 0; lctx.Err() == nil; day++ {
			c.submit(lctx, day)
			sleep(lctx, 2*time.Second)
		}
	}()
	go func() {
		defer wg.Done()
		for lctx.Err() == nil {
			if href := c.lastJob(); href != "" {
				c.get(lctx, "job poll", href)
			}
			c.get(lctx, "job listing", "/v2/smt-jobs?size=10")
			sleep(lctx, time.Second)
		}
	}()

	fmt.Printf("soak: %s of mixed load on energyd --cache-mb %d (2 consumption readers, one archive every 2 s, a job poller; seed %d)\n",
		o.duration, o.cacheMB, o.seed)
	fmt.Printf("%8s %9s %9s %11s %9s %11s\n", "elapsed", "RSS MiB", "heap MiB", "goroutines", "open fds", "cache MiB")
	var samples []sample
	start := time.Now()
	for {
		s, err := scrape(ctx, d.API)
		if err == nil {
			s.at = time.Since(start)
			samples = append(samples, s)
			if len(samples)%6 == 1 || lctx.Err() != nil {
				fmt.Printf("%7.0fs %9.1f %9.1f %11.0f %9.0f %11.1f\n", s.at.Seconds(), s.rss/(1<<20), s.heap/(1<<20), s.goroutines, s.fds, s.cache/(1<<20))
			}
		}
		if lctx.Err() != nil {
			break
		}
		sleep(lctx, 5*time.Second)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return c.verdict(samples, o)
}

// randomRange is a consumption query over a random stretch of the first half of 2024: days,
// or hours over a few days.
func randomRange(rng *rand.Rand) string {
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(180))
	days, step := 1+rng.IntN(90), "DAYS"
	if rng.IntN(3) == 0 {
		days, step = 1+rng.IntN(10), "HOURS"
	}
	to := from.AddDate(0, 0, days)
	return fmt.Sprintf("startTs=%s&endTs=%s&stepUnit=%s&indexStrategy=ALL_ESTIMATED", from.Format(ingest.LayoutLocal), to.Format(ingest.LayoutLocal), step)
}

// archiveOfDay holds day's 24 hourly readings of the site's meter (1 kWh an hour), so the
// data grows and every ingest changes the site's answers.
func archiveOfDay(day int) []byte {
	index := make([]int64, 24)
	for h := range index {
		index[h] = int64(day*24+h) * 1000
	}
	return daemon.HourlyIndexArchive(site, "SOAK-1", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day), index)
}

// client sends the load and keeps, per kind of request, the statuses and latencies.
type client struct {
	api, token string
	http       *http.Client
	mu         sync.Mutex
	stats      map[string]*kindStats
	last       string // link of the last job submitted
}

type kindStats struct {
	statuses  map[int]int
	latencies []time.Duration
}

func (c *client) record(kind string, st int, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.stats[kind]
	if k == nil {
		k = &kindStats{statuses: map[int]int{}}
		c.stats[kind] = k
	}
	k.statuses[st]++
	k.latencies = append(k.latencies, took)
}

func (c *client) lastJob() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

func (c *client) do(ctx context.Context, kind string, req *http.Request) []byte {
	req.Header.Set("Authorization", "Bearer "+c.token)
	began := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.record(kind, 0, time.Since(began))
		}
		return nil
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.record(kind, resp.StatusCode, time.Since(began))
	return b
}

func (c *client) get(ctx context.Context, kind, path string) {
	url := path
	if strings.HasPrefix(path, "/") {
		url = c.api + path
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	c.do(ctx, kind, req)
}

func (c *client) submit(ctx context.Context, day int) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", fmt.Sprintf("soak-day-%03d.tar.gz", day))
	_, _ = part.Write(archiveOfDay(day))
	_ = mw.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.api+"/v2/indexes-collect-jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	b := c.do(ctx, "submission", req)
	var out struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if json.Unmarshal(b, &out) == nil && out.Links.Self.Href != "" {
		c.mu.Lock()
		c.last = out.Links.Self.Href
		c.mu.Unlock()
	}
}

// sample is one reading of energyd's /metrics.
type sample struct {
	at                                time.Duration
	rss, heap, goroutines, fds, cache float64
}

func scrape(ctx context.Context, api string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	var s sample
	into := map[string]*float64{"process_resident_memory_bytes": &s.rss, "go_memstats_heap_inuse_bytes": &s.heap,
		"go_goroutines": &s.goroutines, "process_open_fds": &s.fds, "energy_consumption_cache_bytes": &s.cache}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if p := into[name]; ok && p != nil {
			*p, _ = strconv.ParseFloat(value, 64)
		}
	}
	return s, sc.Err()
}

// verdict prints the request figures and the resource checks; an error when one fails.
func (c *client) verdict(samples []sample, o options) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Println()
	fmt.Printf("%-12s %9s %-28s %8s %8s %8s\n", "requests", "count", "statuses", "p50 ms", "p99 ms", "max ms")
	var kinds []string
	for k := range c.stats {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var failures []string
	for _, k := range kinds {
		s := c.stats[k]
		var codes []int
		for st := range s.statuses {
			codes = append(codes, st)
			if st >= 500 || st == 0 {
				failures = append(failures, fmt.Sprintf("%d %s answered %d", s.statuses[st], k, st))
			}
		}
		sort.Ints(codes)
		var parts []string
		for _, st := range codes {
			parts = append(parts, fmt.Sprintf("%d×%d", st, s.statuses[st]))
		}
		sort.Slice(s.latencies, func(i, j int) bool { return s.latencies[i] < s.latencies[j] })
		pct := func(p float64) float64 {
			return float64(s.latencies[int(p*float64(len(s.latencies)-1))].Microseconds()) / 1000
		}
		fmt.Printf("%-12s %9d %-28s %8.1f %8.1f %8.1f\n", k, len(s.latencies), strings.Join(parts, ", "), pct(0.5), pct(0.99), pct(1))
	}
	if len(samples) < 4 {
		return errors.New("too few /metrics samples to judge")
	}
	var maxRSS float64
	for _, s := range samples {
		maxRSS = max(maxRSS, s.rss)
	}
	// Growth: the last minute against the first minute after a 30 s warm-up.
	window := func(from, to time.Duration) (g, f float64) {
		for _, s := range samples {
			if s.at >= from && s.at < to {
				g, f = max(g, s.goroutines), max(f, s.fds)
			}
		}
		return g, f
	}
	end := samples[len(samples)-1].at
	g0, f0 := window(30*time.Second, 90*time.Second)
	g1, f1 := window(end-time.Minute, end+time.Second)
	bound := float64(o.cacheMB)*(1<<20) + rssHeadroomMB*1e6
	fmt.Println()
	fmt.Printf("RSS: max %.1f MiB (bound: --cache-mb %d MiB + %d MB = %.0f MiB); result cache at the end %.1f MiB\n",
		maxRSS/(1<<20), o.cacheMB, rssHeadroomMB, bound/(1<<20), samples[len(samples)-1].cache/(1<<20))
	fmt.Printf("goroutines: %.0f in the first minute, %.0f in the last; open fds: %.0f, then %.0f\n", g0, g1, f0, f1)
	if maxRSS > bound {
		failures = append(failures, fmt.Sprintf("RSS reached %.1f MiB", maxRSS/(1<<20)))
	}
	if g1 > g0+growthSlack {
		failures = append(failures, fmt.Sprintf("goroutines grew from %.0f to %.0f", g0, g1))
	}
	if f1 > f0+growthSlack {
		failures = append(failures, fmt.Sprintf("open fds grew from %.0f to %.0f", f0, f1))
	}
	if len(failures) > 0 {
		return errors.New("FAILED: " + strings.Join(failures, "; "))
	}
	fmt.Println("PASS")
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
