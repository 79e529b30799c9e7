package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadResult is one throughput test of a cached request.
type loadResult struct {
	scenario  scenario
	clients   int
	requests  int
	elapsed   time.Duration
	latencies []time.Duration
	wrk       *wrkResult // plain answers
	wrkGzip   *wrkResult // with Accept-Encoding: gzip
	gzipBytes int        // the answer gzip-encoded
}

func (l loadResult) perSecond() float64 { return float64(l.requests) / l.elapsed.Seconds() }

// loadTest runs conc clients over loopback, each sending requests one after the other, until
// d has passed or max requests were sent, and checks every answer is a 200 from the cache.
func loadTest(client *http.Client, url, token string, conc int, d time.Duration, max int) (loadResult, error) {
	var sent atomic.Int64
	var failed atomic.Value
	lat := make([][]time.Duration, conc)
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for time.Now().Before(deadline) && sent.Add(1) <= int64(max) {
				t := time.Now()
				st, _, hdr, err := get(client, url, token)
				if err == nil && (st != http.StatusOK || hdr.Get("X-Cache") != "HIT") {
					err = fmt.Errorf("status %d, X-Cache %q", st, hdr.Get("X-Cache"))
				}
				if err != nil {
					failed.Store(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	r := loadResult{clients: conc, elapsed: time.Since(start)}
	if err, _ := failed.Load().(error); err != nil {
		return r, err
	}
	for _, l := range lat {
		r.latencies = append(r.latencies, l...)
	}
	r.requests = len(r.latencies)
	return r, nil
}

// wrkResult is what wrk reports.
type wrkResult struct {
	perSecond float64
	p50, p99  string
	errors    string
}

var (
	wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkP50  = regexp.MustCompile(`\n\s+50%\s+(\S+)`)
	wrkP99  = regexp.MustCompile(`\n\s+99%\s+(\S+)`)
	wrkErrs = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// runWrk measures the same request with wrk (2 threads), when installed, sending the extra
// headers ("Name: value").
func runWrk(ctx context.Context, url, token string, conc int, d time.Duration, headers ...string) *wrkResult {
	if _, err := exec.LookPath("wrk"); err != nil {
		return nil
	}
	secs := max(1, int(d.Seconds()))
	args := []string{"-t2", "-c" + strconv.Itoa(conc), "-d" + strconv.Itoa(secs) + "s", "--latency", "-H", "Authorization: Bearer " + token}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	out, err := exec.CommandContext(ctx, "wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		logf("wrk: %v: %s", err, out)
		return nil
	}
	r := &wrkResult{}
	if m := wrkRate.FindSubmatch(out); m != nil {
		r.perSecond, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := wrkP50.FindSubmatch(out); m != nil {
		r.p50 = string(m[1])
	}
	if m := wrkP99.FindSubmatch(out); m != nil {
		r.p99 = string(m[1])
	}
	if m := wrkErrs.FindSubmatch(out); m != nil {
		r.errors = string(m[1])
	}
	return r
}
