package advices

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	jobsSubmitted = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_advice_jobs_submitted_total",
		Help: "Recommendation jobs accepted (CREATED job stored).",
	})
	jobsFinished = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_advice_jobs_total",
		Help: "Recommendation jobs that reached a final status, by status (DONE, ERROR).",
	}, []string{"status"})
	elementsComputed = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_advice_elements_total",
		Help: "Elements (inputs) of DONE recommendation jobs.",
	})
	jobLatency = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "energy_advice_job_latency_seconds",
		Help:    "Time from submission to a final status (queueing included), for jobs finished by the process that accepted them.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60},
	})
	queueDepth = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_advice_queue_depth",
		Help: "Recommendation jobs waiting for a worker.",
	})
	jobsRunning = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_advice_jobs_running",
		Help: "Recommendation jobs being computed by a worker.",
	})
	jobRetries = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_advice_job_retries_total",
		Help: "Recommendation jobs put back in the queue after a storage failure.",
	})
)

// Each final status's series exists from the start at 0, so that a dashboard shows 0 rather
// than no data before the first job ends that way.
func init() {
	for _, status := range []string{StatusDone, StatusError} {
		jobsFinished.WithLabelValues(status)
	}
}
