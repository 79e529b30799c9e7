package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"energy/bench/daemon"
)

// Every archive holds readingsPerArchive hourly readings of one dial of a pod of its own, so
// what it stores can be counted (rows) and summed (Wh) per archive.
const (
	tenant             = "chaos"
	site               = "chaos-site"
	readingsPerArchive = 24
)

func podOf(seq int) string { return fmt.Sprintf("CHAOS-%06d", seq) }

func archiveName(seq int) string { return fmt.Sprintf("chaos-%06d.tar.gz", seq) }

// indexOf is the Wh index of reading k of archive seq.
func indexOf(seq, k int) int64 { return int64(seq)*1_000_000 + int64(k)*1_000 + int64(seq%997) }

// expectedWh is the sum of archive seq's indexes.
func expectedWh(seq int) int64 {
	var s int64
	for k := range readingsPerArchive {
		s += indexOf(seq, k)
	}
	return s
}

func archiveOf(seq int) []byte {
	index := make([]int64, readingsPerArchive)
	for k := range index {
		index[k] = indexOf(seq, k)
	}
	return daemon.HourlyIndexArchive(site, podOf(seq), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), index)
}

// ledger is what the clients saw: every archive sent, and the job of each one answered 200.
type ledger struct {
	mu       sync.Mutex
	next     int
	sent     []int          // every sequence number sent
	accepted map[int]string // sequence number → job id, for archives answered 200
	statuses map[string]map[string]int
	phase    string
	slowest  map[string]time.Duration
}

func newLedger() *ledger {
	return &ledger{accepted: map[int]string{}, statuses: map[string]map[string]int{}, slowest: map[string]time.Duration{}}
}

// setPhase starts counting statuses under a new name.
func (l *ledger) setPhase(p string) {
	l.mu.Lock()
	l.phase = p
	l.mu.Unlock()
}

func (l *ledger) count(kind string, st int, err error, took time.Duration) {
	key := fmt.Sprint(st)
	if err != nil {
		key = "no answer"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.phase + "\t" + kind
	if l.statuses[k] == nil {
		l.statuses[k] = map[string]int{}
	}
	l.statuses[k][key]++
	l.slowest[k] = max(l.slowest[k], took)
}

// statusLine is "200×12, 503×3" for a phase and kind.
func (l *ledger) statusLine(phase, kind string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.statuses[phase+"\t"+kind]
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (slowest %.1f s)", l.slowest[phase+"\t"+kind].Seconds())
}

// load runs submitters and readers against api until ctx ends.
type load struct {
	api    string
	token  string
	ledger *ledger
	client *http.Client
	sends  atomic.Int64
}

func (ld *load) run(ctx context.Context, submitters, readers int, pause time.Duration) *sync.WaitGroup {
	var wg sync.WaitGroup
	// repeat starts n clients, each doing one request after another until ctx ends.
	repeat := func(n int, one func(context.Context)) {
		for range n {
			wg.Go(func() {
				for ctx.Err() == nil {
					one(ctx)
					sleep(ctx, pause)
				}
			})
		}
	}
	repeat(submitters, ld.submitOne)
	repeat(readers, ld.readOne)
	return &wg
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// submitOne sends the next archive; it is accepted only when the answer is 200 with a job link.
func (ld *load) submitOne(ctx context.Context) {
	l := ld.ledger
	l.mu.Lock()
	seq := l.next
	l.next++
	l.sent = append(l.sent, seq)
	l.mu.Unlock()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", archiveName(seq))
	_, _ = part.Write(archiveOf(seq))
	_ = mw.Close()
	// Not the load's context: a submission in flight when the load stops is let finish.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, ld.api+"/v2/indexes-collect-jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+ld.token)
	began := time.Now()
	resp, err := ld.client.Do(req)
	st := 0
	if err == nil {
		st = resp.StatusCode
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Links struct{ Self struct{ Href string } } `json:"_links"`
		}
		if st == http.StatusOK && json.Unmarshal(b, &out) == nil && out.Links.Self.Href != "" {
			href := out.Links.Self.Href
			l.mu.Lock()
			l.accepted[seq] = href[strings.LastIndex(href, "/")+1:]
			l.mu.Unlock()
		}
	}
	ld.sends.Add(1)
	l.count("submissions", st, err, time.Since(began))
}

// readOne lists the tenant's jobs: a read that needs ClickHouse.
func (ld *load) readOne(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodGet, ld.api+"/v2/smt-jobs?size=1", nil)
	req.Header.Set("Authorization", "Bearer "+ld.token)
	began := time.Now()
	resp, err := ld.client.Do(req)
	st := 0
	if err == nil {
		st = resp.StatusCode
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	} else if ctx.Err() != nil {
		return // the load stopped, not the service
	}
	ld.ledger.count("reads", st, err, time.Since(began))
}
