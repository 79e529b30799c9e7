package cache

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// MetricNames are the names of a result cache's series. Each analysis writes its names out in
// full where it registers them, so that a search of the code finds every metric the service
// exposes (the deploy examples' dashboard is checked that way).
type MetricNames struct {
	Hits, Misses, Evictions, Entries, Bytes string
}

// NewMetrics registers the series of one analysis's result cache; answers says what the cache
// holds, for the help texts ("Consumption answers").
func NewMetrics(names MetricNames, answers string) Metrics {
	return Metrics{
		Hits: promauto.NewCounter(prometheus.CounterOpts{Name: names.Hits,
			Help: answers + " served from the result cache."}),
		Misses: promauto.NewCounter(prometheus.CounterOpts{Name: names.Misses,
			Help: answers + " computed (not in the cache, or what they depend on changed)."}),
		Evictions: promauto.NewCounter(prometheus.CounterOpts{Name: names.Evictions,
			Help: answers + " dropped from the result cache to stay within its entry and byte bounds."}),
		Entries: promauto.NewGauge(prometheus.GaugeOpts{Name: names.Entries,
			Help: answers + " held in the result cache."}),
		Bytes: promauto.NewGauge(prometheus.GaugeOpts{Name: names.Bytes,
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
