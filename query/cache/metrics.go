package cache

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// NewMetrics registers the series of one analysis's result cache, named family + "_hits_total",
// "_misses_total", "_evictions_total", "_refreshes_total", "_refreshes_dropped_total", "_entries"
// and "_bytes" (family "energy_consumption_cache":
// energy_consumption_cache_hits_total…); answers says what the cache holds, for the help texts
// ("Consumption answers").
func NewMetrics(family, answers string) Metrics {
	return Metrics{
		Hits: promauto.NewCounter(prometheus.CounterOpts{Name: family + "_hits_total",
			Help: answers + " served from the result cache."}),
		Misses: promauto.NewCounter(prometheus.CounterOpts{Name: family + "_misses_total",
			Help: answers + " computed (not in the cache, or what they depend on changed)."}),
		Evictions: promauto.NewCounter(prometheus.CounterOpts{Name: family + "_evictions_total",
			Help: answers + " dropped from the result cache to stay within its entry and byte bounds."}),
		Refreshes: promauto.NewCounter(prometheus.CounterOpts{Name: family + "_refreshes_total",
			Help: answers + " computed again in the background after a change of their data, because they were requested recently."}),
		RefreshesDropped: promauto.NewCounter(prometheus.CounterOpts{Name: family + "_refreshes_dropped_total",
			Help: "Background recomputations of " + lowerFirst(answers) + " given up (queue full, computation failed, data changing throughout): the next request computes."}),
		Entries: promauto.NewGauge(prometheus.GaugeOpts{Name: family + "_entries",
			Help: answers + " held in the result cache."}),
		Bytes: promauto.NewGauge(prometheus.GaugeOpts{Name: family + "_bytes",
			Help: "Approximate memory held by the result cache of " + lowerFirst(answers) + " (encoded answers and keys)."}),
	}
}

// lowerFirst turns "Consumption answers" into "consumption answers" for use inside a sentence.
func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
