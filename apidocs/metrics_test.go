package apidocs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestMetricsExposeRequestsClickHouseAndRuntime reads /metrics after real traffic: requests by
// route pattern (not raw path), method and status; latency histograms; ClickHouse call latency;
// Go runtime and process collectors.
func TestMetricsExposeRequestsClickHouseAndRuntime(t *testing.T) {
	h := newHarness(t)
	if st, b, _ := h.do("PUT", "/v2/sites/METRICS-1", h.admin, `{}`); st != http.StatusOK {
		t.Fatalf("PUT site: %d %s", st, b)
	}
	h.do("GET", "/v2/sites/METRICS-1", h.admin, "")
	h.do("GET", "/v2/sites/METRICS-404", h.admin, "")
	h.do("GET", "/v2/nowhere", "", "")
	h.do("BREW-1", "/v2/sites/METRICS-1", h.admin, "")
	h.do("BREW-2", "/v2/sites/METRICS-1", h.admin, "")
	st, b, hdr := h.do("GET", "/metrics", "", "")
	if st != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", st, hdr.Get("Content-Type"))
	}
	text := string(b)
	for _, want := range []string{
		`energy_http_requests_total{listener="main",method="PUT",route="/v2/sites/{siteId}",status="200"}`,
		`energy_http_requests_total{listener="main",method="GET",route="/v2/sites/{siteId}",status="200"}`,
		`energy_http_requests_total{listener="main",method="GET",route="/v2/sites/{siteId}",status="404"}`,
		`energy_http_requests_total{listener="main",method="GET",route="unmatched",status="404"}`,
		`energy_http_request_duration_seconds_bucket{listener="main",method="GET",route="/v2/sites/{siteId}",le="0.1"}`,
		`energy_http_requests_in_flight{listener="main"}`,
		// Methods outside HTTP's own share one label value, whatever clients send.
		`energy_http_requests_total{listener="main",method="OTHER",route="unmatched",status="405"} 2`,
		`energy_clickhouse_query_duration_seconds_bucket{op="query"`,
		`energy_clickhouse_query_duration_seconds_count{op="insert"}`,
		"go_goroutines ", "go_memstats_heap_alloc_bytes ", "go_gc_duration_seconds",
		"process_resident_memory_bytes ", "process_cpu_seconds_total ", "process_open_fds ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(text, "BREW-") {
		t.Error("/metrics labels carry a client's raw method")
	}
	if strings.Contains(text, "METRICS-1") || strings.Contains(text, "METRICS-404") {
		t.Error("/metrics labels carry a raw site id: one series per site would explode")
	}
}

// syncBuffer is a log destination the server's goroutines may write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(s.b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func TestAccessLogIsStructuredJSON(t *testing.T) {
	h := newHarness(t)
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	handler, _ := NewMain(Config{Registry: h.reg, Ready: h.db.Ping, Logger: log})
	srv := httptest.NewServer(handler)
	defer srv.Close()
	h.srv = srv

	req, _ := http.NewRequest("GET", srv.URL+"/v2/sites/LOG-1", nil)
	req.Header.Set("Authorization", "Bearer "+h.admin)
	req.Header.Set("X-Request-Id", "log-test-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.do("GET", "/healthz", "", "") // debug level: not in an info log

	var found map[string]any
	for _, l := range buf.lines() {
		if l["route"] == "/healthz" {
			t.Errorf("/healthz logged at info level: %v", l)
		}
		if l["requestId"] == "log-test-1" {
			found = l
		}
	}
	if found == nil {
		t.Fatalf("no access-log line with the request id; log:\n%s", buf.b.String())
	}
	want := map[string]any{"msg": "request", "level": "INFO", "method": "GET", "route": "/v2/sites/{siteId}",
		"path": "/v2/sites/LOG-1", "status": float64(404), "listener": "main"}
	for k, v := range want {
		if found[k] != v {
			t.Errorf("log field %s = %v, want %v (line %v)", k, found[k], v, found)
		}
	}
	if d, ok := found["durationMs"].(float64); !ok || d < 0 {
		t.Errorf("durationMs %v", found["durationMs"])
	}
	if _, ok := found["time"]; !ok {
		t.Error("no time field")
	}
}
