package cache

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestNewMetricsRegistersTheNamedSeries: the seven series are exposed under the names given,
// with help texts saying what the cache holds, and they move when the cache counts.
func TestNewMetricsRegistersTheNamedSeries(t *testing.T) {
	m := NewMetrics("energy_test_cache", "Test answers")
	m.Hits.Add(3)
	m.Bytes.Set(1024)
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	help, value := map[string]string{}, map[string]float64{}
	for _, f := range families {
		help[f.GetName()] = f.GetHelp()
		for _, s := range f.GetMetric() {
			value[f.GetName()] = s.GetCounter().GetValue() + s.GetGauge().GetValue()
		}
	}
	for name, want := range map[string]string{
		"energy_test_cache_hits_total":              "Test answers served from the result cache.",
		"energy_test_cache_misses_total":            "Test answers computed (not in the cache, or what they depend on changed).",
		"energy_test_cache_evictions_total":         "Test answers dropped from the result cache to stay within its entry and byte bounds.",
		"energy_test_cache_refreshes_total":         "Test answers computed again in the background after a change of their data, because they were requested recently.",
		"energy_test_cache_refreshes_dropped_total": "Background recomputations of test answers given up (queue full, computation failed, data changing throughout): the next request computes.",
		"energy_test_cache_entries":                 "Test answers held in the result cache.",
		"energy_test_cache_bytes":                   "Approximate memory held by the result cache of test answers (encoded answers and keys).",
	} {
		if help[name] != want {
			t.Errorf("%s: help %q, want %q", name, help[name], want)
		}
	}
	if value["energy_test_cache_hits_total"] != 3 || value["energy_test_cache_bytes"] != 1024 {
		t.Errorf("hits %v and bytes %v, want 3 and 1024", value["energy_test_cache_hits_total"], value["energy_test_cache_bytes"])
	}
}
