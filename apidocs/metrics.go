package apidocs

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	httpRequests = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_http_requests_total",
		Help: "HTTP requests by listener, route pattern, method and status.",
	}, []string{"listener", "route", "method", "status"})
	httpDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "energy_http_request_duration_seconds",
		Help:    "HTTP request latency by listener and route pattern.",
		Buckets: []float64{.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
	}, []string{"listener", "route", "method"})
	httpInFlight = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "energy_http_requests_in_flight",
		Help: "HTTP requests being served, by listener.",
	}, []string{"listener"})
)

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// routeSeries are the request counter and latency histogram of one route, method and status.
type routeSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

type routeKey struct {
	route, method string
	status        int
}

// listenerSeries resolves each (route, method, status) of a listener to its series once and
// keeps them: a label lookup hashes every label value, on every request. The key set is small
// (route patterns, not raw paths).
type listenerSeries struct {
	listener string
	known    sync.Map // routeKey → *routeSeries
}

func (s *listenerSeries) of(route, method string, status int) *routeSeries {
	k := routeKey{route, method, status}
	if v, ok := s.known.Load(k); ok {
		return v.(*routeSeries)
	}
	v, _ := s.known.LoadOrStore(k, &routeSeries{
		requests: httpRequests.WithLabelValues(s.listener, route, method, strconv.Itoa(status)),
		duration: httpDuration.WithLabelValues(s.listener, route, method),
	})
	return v.(*routeSeries)
}

// metricMethod is the method label of a request: HTTP's own methods as they are, any other
// word a client sends as OTHER, so that clients cannot grow the series without bound.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// measure records every request by chi route pattern (never the raw path, which would make
// one series per site id) and writes its access-log line.
func measure(listener string, log *slog.Logger) func(http.Handler) http.Handler {
	inFlight := httpInFlight.WithLabelValues(listener)
	series := &listenerSeries{listener: listener}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			inFlight.Inc()
			defer inFlight.Dec()
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			route := "unmatched"
			if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
				route = rc.RoutePattern()
			}
			if rec.status == 0 {
				rec.status = http.StatusOK
			}
			elapsed := time.Since(start)
			s := series.of(route, metricMethod(r.Method), rec.status)
			s.requests.Inc()
			s.duration.Observe(elapsed.Seconds())
			logRequest(log, r, listener, route, rec.status, rec.bytes, elapsed)
		})
	}
}
