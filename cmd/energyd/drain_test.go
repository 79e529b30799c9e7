package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"energy/schema/chtest"
)

// SIGTERM under load, as a rolling update delivers it: clients keep sending requests through a
// balancer that polls /readyz every 50 ms and takes energyd out of rotation when it answers 503.
// No request is refused or fails (every one gets 200), requests go on being served after the
// signal, /readyz turns 503 at once while the listener still accepts connections for
// --shutdown-delay, an archive accepted just before the signal is processed to DONE (not left
// to the next start), and energyd exits 0.
func TestSIGTERMUnderLoadLosesNoRequest(t *testing.T) {
	dsn := chtest.DSN(t)
	// The load's clients share one token: unlimited, so that every refusal is the drain's.
	d := startEnergydWith(t, buildEnergyd(t), "--clickhouse-dsn", dsn, "--data-dir", t.TempDir(), "--shutdown-delay", "3s", "--rate-limit", "off")
	tr := newTraffic(t, dsn, d.addr)
	db, _, _ := acmeWithSite(t, dsn)

	var inRotation atomic.Bool
	inRotation.Store(true)
	var outOfRotation atomic.Int64 // unix nanoseconds
	var notReady atomic.Value      // the 503's body
	go func() {
		client := &http.Client{Timeout: time.Second}
		for inRotation.Load() {
			resp, err := client.Get("http://" + d.addr + "/readyz")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					notReady.Store(string(b))
					outOfRotation.Store(time.Now().UnixNano())
					inRotation.Store(false)
					return
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()

	var sent, afterSignal atomic.Int64
	var signalled atomic.Bool
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	paths := []string{
		"/v2/sites/S1/fluids/elec/consumptions?startTs=2024-02-01T00:00:00&endTs=2024-02-04T00:00:00&stepUnit=DAYS",
		"/v2/sites/S1",
		"/v2/smt-jobs",
	}
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for end := time.Now().Add(30 * time.Second); inRotation.Load() && time.Now().Before(end); {
				path := paths[(c+int(sent.Load()))%len(paths)]
				code, body, err := tr.do(http.MethodGet, path, "", nil, tr.secret)
				sent.Add(1)
				if signalled.Load() {
					afterSignal.Add(1)
				}
				if err != nil || code != http.StatusOK {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("GET %s: %d %.200s %v", path, code, body, err))
					mu.Unlock()
					if err != nil {
						return // refused: a balancer would stop here too
					}
				}
			}
		}(c)
	}

	time.Sleep(time.Second) // load before the signal
	contentType, body := archiveForm(t, "indexes.json", smartElecIndexes("S1",
		[3]any{"2024-02-05T00:00:00Z", 130, 280}, [3]any{"2024-02-06T00:00:00Z", 140, 300}))
	code, b, err := tr.do(http.MethodPost, "/v2/indexes-collect-jobs", contentType, body, tr.secret)
	if err != nil || code != http.StatusOK {
		t.Fatalf("archive submission: %d %s %v", code, b, err)
	}
	var link struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal(b, &link); err != nil || !strings.Contains(link.Links.Self.Href, "/v2/indexes-collect-jobs/") {
		t.Fatalf("archive submission answered %s (%v)", b, err)
	}
	jobID := link.Links.Self.Href[strings.LastIndex(link.Links.Self.Href, "/")+1:]
	signal := time.Now()
	signalled.Store(true)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	// The listener keeps accepting connections for the delay, then closes.
	var refused time.Time
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", d.addr, time.Second)
		if err != nil {
			refused = time.Now()
			break
		}
		c.Close()
	}
	wg.Wait()
	if refused.IsZero() {
		t.Fatal("energyd still accepts connections 20 s after SIGTERM")
	}
	select {
	case err := <-d.exited:
		if err != nil {
			t.Errorf("energyd exit after SIGTERM: %v, want status 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("energyd still running 60 s after SIGTERM")
	}

	if len(failures) > 0 {
		t.Errorf("%d of %d requests refused or failed, first: %s", len(failures), sent.Load(), strings.Join(failures[:min(5, len(failures))], "\n"))
	}
	if sent.Load() < 50 || afterSignal.Load() == 0 {
		t.Errorf("%d requests sent, %d after SIGTERM: the load did not span the signal", sent.Load(), afterSignal.Load())
	}
	out := time.Unix(0, outOfRotation.Load())
	if outOfRotation.Load() == 0 || out.Sub(signal) > 1500*time.Millisecond {
		t.Errorf("/readyz did not answer 503 within 1.5 s of SIGTERM (out of rotation after %v)", out.Sub(signal))
	}
	if b, _ := notReady.Load().(string); !strings.Contains(b, "shutting down") {
		t.Errorf("/readyz after SIGTERM: %q, want it to say energyd is shutting down", b)
	}
	if refused.Sub(out) < time.Second {
		t.Errorf("the listener closed %v after /readyz turned 503: want most of the 3 s --shutdown-delay between them", refused.Sub(out))
	}
	var state string
	if err := db.Conn.QueryRow(context.Background(), "SELECT state FROM (SELECT state FROM jobs FINAL WHERE tenant_id = 'acme' AND job_id = ?)", jobID).Scan(&state); err != nil || state != "DONE" {
		t.Errorf("the archive accepted before SIGTERM: job %s is %q (%v), want DONE before energyd exits", jobID, state, err)
	}
	t.Logf("%d requests, %d after SIGTERM; out of rotation %v after it, listener closed %v later",
		sent.Load(), afterSignal.Load(), out.Sub(signal).Round(time.Millisecond), refused.Sub(out).Round(time.Millisecond))
}
