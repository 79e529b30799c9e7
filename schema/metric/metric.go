// Package metric declares the service's Prometheus series, each in one line where it is
// used: its full name stays written out there, so that a search of the code finds the series
// the service exposes (dashboards and tests look them up by name). The result caches are the
// exception: their five series each are named from a family (query/cache.NewMetrics), and the
// deploy test looks those up in the registry. Series are registered with the default registry,
// which energyd serves on /metrics.
package metric

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Counter registers a counter.
func Counter(name, help string) prometheus.Counter {
	return promauto.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

// Gauge registers a gauge.
func Gauge(name, help string) prometheus.Gauge {
	return promauto.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

// Histogram registers a histogram with the given bucket bounds.
func Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return promauto.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
}

// CounterVec registers a counter with one label; each of the known label values has its
// series from the start, at 0, so that a dashboard shows 0 rather than no data before the
// first event of that kind.
func CounterVec(name, help, label string, known ...string) *prometheus.CounterVec {
	v := promauto.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{label})
	for _, value := range known {
		v.WithLabelValues(value)
	}
	return v
}

// HistogramVec registers a histogram with one label, each known label value's series at 0
// from the start (as CounterVec).
func HistogramVec(name, help string, buckets []float64, label string, known ...string) *prometheus.HistogramVec {
	v := promauto.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, []string{label})
	for _, value := range known {
		v.WithLabelValues(value)
	}
	return v
}
