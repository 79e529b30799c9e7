package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// exposeSchedulerMetrics replaces the default Go collector of /metrics with one that also
// exports the runtime's scheduler histograms: go_sched_latencies_seconds (how long runnable
// goroutines waited for a processor) and go_sched_pauses_total_gc_seconds (how long the
// collector stopped every goroutine). They tell whether slow requests wait for a processor or
// for the collector; `make bench-mixed` reads them.
func exposeSchedulerMetrics() {
	prometheus.Unregister(collectors.NewGoCollector())
	prometheus.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)))
}
