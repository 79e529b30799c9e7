package advices

import "energy/schema/metric"

var (
	jobsSubmitted = metric.Counter("energy_advice_jobs_submitted_total",
		"Recommendation jobs accepted (CREATED job stored).")
	jobsFinished = metric.CounterVec("energy_advice_jobs_total",
		"Recommendation jobs that reached a final status, by status (DONE, ERROR).", "status", StatusDone, StatusError)
	elementsComputed = metric.Counter("energy_advice_elements_total",
		"Elements (inputs) of DONE recommendation jobs.")
	jobLatency = metric.Histogram("energy_advice_job_latency_seconds",
		"Time from submission to a final status (queueing included), for jobs finished by the process that accepted them.",
		[]float64{.01, .025, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60})
	queueDepth = metric.Gauge("energy_advice_queue_depth",
		"Recommendation jobs waiting for a worker.")
	jobsRunning = metric.Gauge("energy_advice_jobs_running",
		"Recommendation jobs being computed by a worker.")
	jobRetries = metric.Counter("energy_advice_job_retries_total",
		"Recommendation jobs put back in the queue after a storage failure.")
)
