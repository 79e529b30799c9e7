package apidocs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"energy/query/cache"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// storedAnswers serves one fixed JSON answer through a real result cache: the cached path of
// the consumption endpoint without the engine.
type storedAnswers struct {
	results *cache.Results
	body    []byte
}

func (s *storedAnswers) JSON(ctx context.Context, tenantID, siteID, request string, _ consumption.Resolve) ([]byte, bool, error) {
	return s.results.Get(ctx, tenantID, siteID, request, func(context.Context) ([]byte, error) { return s.body, nil })
}

// discardResponse is the cheapest ResponseWriter: what the chain costs, not the socket.
type discardResponse struct {
	header http.Header
	status int
	bytes  int
}

func (w *discardResponse) Header() http.Header         { return w.header }
func (w *discardResponse) WriteHeader(code int)        { w.status = code }
func (w *discardResponse) Write(b []byte) (int, error) { w.bytes += len(b); return len(b), nil }

// yearOfDays is a JSON body shaped like a DAYS year answer (about 170 KiB).
func yearOfDays() []byte {
	var b strings.Builder
	b.WriteString(`{"consumptions":[`)
	for i := range 366 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"startTime":"2024-01-%02dT00:00:00+01:00","endTime":"2024-01-%02dT00:00:00+01:00","step":"P1D","energyMeter":{"total":%d,"byTariffHeading":{"HC":%d,"HP":%d}},"cost":{"total":%.6f,"byTariffHeading":{"HC":%.6f,"HP":%.6f},"standingCharge":{"total":0.471, "byComponent":{"subscription":0.413,"cta":0.058}}},"quality":100,"status":"COMPLETE","nature":"REAL","aggregated":false,"indexNatures":["MKT_SMART_DISTRIBUTOR"],"errorFlags":[],"usingLoadCurve":false}`,
			i%28+1, i%28+2, 18000+i*37%5000, 6000+i*13%2000, 12000+i*29%3000, float64(i)*0.37, float64(i)*0.11, float64(i)*0.26)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkCachedDaysGzip measures the CPU the serving chain spends on a cached answer asked
// for with Accept-Encoding: gzip (what wrk's gzip run of make bench sends), socket excluded:
// request id, metrics, access log, compression, routing, authentication, Huma's parameters and
// the result cache.
func BenchmarkCachedDaysGzip(b *testing.B) {
	db := chtest.DB(b)
	for _, c := range []struct {
		name  string
		level slog.Level
	}{{"access log off", slog.LevelWarn}, {"access log on", slog.LevelInfo}} {
		b.Run(c.name, func(b *testing.B) {
			benchmarkCachedDaysGzip(b, db, slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: c.level})))
		})
	}
}

func benchmarkCachedDaysGzip(b *testing.B, db *schema.DB, log *slog.Logger) {
	reg := registry.New(db)
	counter := func() prometheus.Counter { return prometheus.NewCounter(prometheus.CounterOpts{Name: "c"}) }
	gauge := func() prometheus.Gauge { return prometheus.NewGauge(prometheus.GaugeOpts{Name: "g"}) }
	m := cache.Metrics{Hits: counter(), Misses: counter(), Evictions: counter(), Refreshes: counter(), RefreshesDropped: counter(), Entries: gauge(), Bytes: gauge()}
	answers := &storedAnswers{results: cache.NewResults(reg.Versions, 100, 0, m), body: yearOfDays()}
	h, _ := NewMain(Config{Registry: reg, Ready: db.Ping, Consumptions: answers, Logger: log})
	secret, _, err := reg.CreateToken(context.Background(), "acme", []string{"read"}, 0, "bench")
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, consPath+"?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=DAYS", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Accept-Encoding", "gzip")
	serve := func() *discardResponse {
		w := &discardResponse{header: http.Header{}}
		h.ServeHTTP(w, req.Clone(context.Background()))
		return w
	}
	for range 2 { // the first computes, the second makes the gzip form
		serve()
	}
	if w := serve(); w.status != http.StatusOK || w.header.Get("Content-Encoding") != "gzip" || w.header.Get("X-Cache") != "HIT" {
		b.Fatalf("status %d Content-Encoding %q X-Cache %q", w.status, w.header.Get("Content-Encoding"), w.header.Get("X-Cache"))
	}
	loopWithCPU(b, func(int) { serve() })
}

// loopWithCPU runs the benchmark's loop over serve (given the iteration's number) and reports
// its allocations and the process's CPU per iteration (cpu-ns/op, see processCPU).
func loopWithCPU(b *testing.B, serve func(i int)) {
	b.ReportAllocs()
	cpu0, n := processCPU(), 0
	for b.Loop() {
		serve(n)
		n++
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(n), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time so far: on a shared machine it tells
// what a request costs better than elapsed time, which also counts waiting for a core.
func processCPU() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
