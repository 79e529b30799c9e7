package cache

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// NewMetrics registers the series of one analysis's result cache, energy_<name>_cache_*;
// answers says what the cache holds, for the help texts ("Consumption answers").
func NewMetrics(name, answers string) Metrics {
	prefix := "energy_" + name + "_cache_"
	return Metrics{
		Hits: promauto.NewCounter(prometheus.CounterOpts{Name: prefix + "hits_total",
			Help: answers + " served from the result cache."}),
		Misses: promauto.NewCounter(prometheus.CounterOpts{Name: prefix + "misses_total",
			Help: answers + " computed (not in the cache, or what they depend on changed)."}),
		Evictions: promauto.NewCounter(prometheus.CounterOpts{Name: prefix + "evictions_total",
			Help: answers + " dropped from the result cache to stay within its entry and byte bounds."}),
		Entries: promauto.NewGauge(prometheus.GaugeOpts{Name: prefix + "entries",
			Help: answers + " held in the result cache."}),
		Bytes: promauto.NewGauge(prometheus.GaugeOpts{Name: prefix + "bytes",
			Help: "Approximate memory held by the result cache of " + name + " answers (encoded answers and keys)."}),
	}
}
