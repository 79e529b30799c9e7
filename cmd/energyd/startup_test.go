package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"energy/schema/server"
)

// get returns the status and body of a GET, or 0 when nothing answers.
func get(url string) (int, string) {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// energyd started against a port where no ClickHouse listens answers /healthz 200 and /readyz
// 503 with the reason within a second; a ClickHouse then started on that port makes it ready
// without a restart.
func TestStartsWithoutTheStore(t *testing.T) {
	if _, _, err := server.FindServerBinary(); err != nil {
		t.Fatalf("this test launches its own ClickHouse: %v", err)
	}
	bin := buildEnergyd(t)
	chAddr := freeAddr(t)
	_, portText, _ := net.SplitHostPort(chAddr)
	port, _ := strconv.Atoi(portText)

	start := time.Now()
	d := launchEnergyd(t, bin, "--clickhouse-dsn", "clickhouse://"+chAddr+"/energy", "--data-dir", t.TempDir())
	var health, ready int
	var readyBody string
	for time.Since(start) < time.Second && (health != http.StatusOK || ready != http.StatusServiceUnavailable) {
		health, _ = get("http://" + d.addr + "/healthz")
		ready, readyBody = get("http://" + d.addr + "/readyz")
		time.Sleep(20 * time.Millisecond)
	}
	if health != http.StatusOK || ready != http.StatusServiceUnavailable {
		t.Fatalf("1 s after start: /healthz %d, /readyz %d %s; want 200 and 503", health, ready, readyBody)
	}
	var e struct{ ErrorCode, ErrorDescription string }
	if err := json.Unmarshal([]byte(readyBody), &e); err != nil || e.ErrorCode != "STORAGE_UNAVAILABLE" || !strings.Contains(e.ErrorDescription, "not reachable") {
		t.Fatalf("/readyz body %s: want STORAGE_UNAVAILABLE naming the unreachable store", readyBody)
	}
	if code, body := get("http://" + d.addr + "/v2/sites/x"); code != http.StatusServiceUnavailable || !strings.Contains(body, "STORAGE_UNAVAILABLE") {
		t.Fatalf("API while waiting: %d %s, want 503 STORAGE_UNAVAILABLE", code, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := server.StartLocalAt(ctx, t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	up := time.Now()
	for {
		code, body := get("http://" + d.addr + "/readyz")
		if code == http.StatusOK {
			t.Logf("ready %v after its ClickHouse answered", time.Since(up).Round(time.Millisecond))
			break
		}
		if time.Since(up) > 30*time.Second {
			t.Fatalf("/readyz still %d %s 30 s after ClickHouse started", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case err := <-d.exited:
		t.Fatalf("energyd exited (%v): it was restarted, not made ready", err)
	default:
	}
	if code, body := get("http://" + d.addr + "/v2/sites/x"); code != http.StatusUnauthorized {
		t.Fatalf("API once ready: %d %s, want 401 without a token", code, body)
	}
}
