package apidocs

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// metricValue reads a counter's value or a histogram's sample count.
func metricValue(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	if d.Histogram != nil {
		return float64(d.Histogram.GetSampleCount())
	}
	return d.Counter.GetValue()
}

// The series measure resolves once per route, method and status are the labelled ones: each
// request is counted under its own labels, and one route's statuses stay apart.
func TestRequestSeriesKeepTheirLabels(t *testing.T) {
	const listener = "series-test"
	router := chi.NewRouter()
	router.Use(measure(listener, slog.New(slog.NewTextHandler(io.Discard, nil))))
	router.Get("/things/{status}", func(w http.ResponseWriter, r *http.Request) {
		status, _ := strconv.Atoi(chi.URLParam(r, "status"))
		w.WriteHeader(status)
	})
	router.Post("/things/{status}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("written without a status: 200"))
	})
	srv := httptest.NewServer(router)
	defer srv.Close()
	for _, req := range []struct{ method, path string }{
		{"GET", "/things/200"}, {"GET", "/things/200"}, {"GET", "/things/200"},
		{"GET", "/things/404"}, {"GET", "/things/404"}, {"POST", "/things/1"}, {"GET", "/elsewhere"},
	} {
		r, err := http.NewRequest(req.method, srv.URL+req.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	route := "/things/{status}"
	for _, c := range []struct {
		metric prometheus.Metric
		what   string
		want   float64
	}{
		{httpRequests.WithLabelValues(listener, route, "GET", "200"), "GET 200", 3},
		{httpRequests.WithLabelValues(listener, route, "GET", "404"), "GET 404", 2},
		{httpRequests.WithLabelValues(listener, route, "POST", "200"), "POST 200", 1},
		{httpRequests.WithLabelValues(listener, "unmatched", "GET", "404"), "unmatched GET 404", 1},
		{httpDuration.WithLabelValues(listener, route, "GET").(prometheus.Metric), "GET latencies", 5},
		{httpDuration.WithLabelValues(listener, route, "POST").(prometheus.Metric), "POST latencies", 1},
	} {
		if got := metricValue(t, c.metric); got != c.want {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
}

func TestRequestSeriesResolvedOnce(t *testing.T) {
	s := &listenerSeries{listener: "series-once-test"}
	a, b := s.of("/r", "GET", 200), s.of("/r", "GET", 200)
	if a != b {
		t.Error("the same route, method and status resolved twice")
	}
	if s.of("/r", "GET", 500) == a || s.of("/r", "PUT", 200) == a || s.of("/s", "GET", 200) == a {
		t.Error("another status, method or route shares a series")
	}
	a.requests.Inc()
	if got := metricValue(t, httpRequests.WithLabelValues("series-once-test", "/r", "GET", "200")); got != 1 {
		t.Errorf("the resolved counter is not the labelled one: %v", got)
	}
}
