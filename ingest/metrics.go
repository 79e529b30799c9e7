package ingest

import (
	"energy/schema/metric"
	"energy/schema/tables"
)

// finalStates label the series of finished jobs: each has its series from the start.
var finalStates = []string{StateDone, StateError, StateTimeout}

// insertedTables are the tables an archive's rows go to (the "table" label of the insert metrics).
var insertedTables = []string{tables.ElecIndexes, tables.GasIndexes, tables.MaxPowers, tables.LoadCurvePoints, tables.Pods}

var (
	jobsFinished = metric.CounterVec("energy_ingest_jobs_total",
		"Archive jobs that reached a final state, by state (DONE, ERROR, TIMEOUT).", "state", finalStates...)
	jobsSubmitted = metric.Counter("energy_ingest_jobs_submitted_total",
		"Archives accepted (durably stored, SUBMITTED job written).")
	operationsTotal = metric.CounterVec("energy_ingest_operations_total",
		"Archive operations (array elements) of DONE jobs, by result (ok, ko).", "result", "ok", "ko")
	rowsInserted = metric.CounterVec("energy_ingest_rows_inserted_total",
		"Rows sent to ClickHouse by table (re-sent records count again; FINAL reads see them once).", "table", insertedTables...)
	insertDuration = metric.HistogramVec("energy_ingest_insert_duration_seconds",
		"Latency of one batch insert (prepare, append, send) by table.",
		[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "table", insertedTables...)
	jobStateInserts = metric.Counter("energy_ingest_job_state_inserts_total",
		"Inserts into the jobs table: each carries the state changes of the jobs that changed state while the previous one was sent.")
	jobStatesWritten = metric.Counter("energy_ingest_job_states_written_total",
		"Job state changes written to the jobs table (rows of energy_ingest_job_state_inserts_total).")
	processingDuration = metric.HistogramVec("energy_ingest_job_processing_seconds",
		"Time from a job's claim by a worker to its final state, by final state.",
		[]float64{.01, .025, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 300}, "state", finalStates...)
	jobLatency = metric.HistogramVec("energy_ingest_job_latency_seconds",
		"Time from submission to final state, by final state (queueing included).",
		[]float64{.05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 300, 600, 1800}, "state", finalStates...)
	queueDepth = metric.Gauge("energy_ingest_queue_depth",
		"Jobs waiting for a worker (SUBMITTED, or released for a retry).")
	jobsRunning = metric.Gauge("energy_ingest_jobs_running",
		"Jobs being processed by a worker.")
	jobRetries = metric.Counter("energy_ingest_job_retries_total",
		"Jobs put back in the queue after a transient failure (storage unavailable).")
	jobsTakenOver = metric.Counter("energy_ingest_jobs_taken_over_total",
		"Jobs this replica took over (cluster mode) after the lease of the replica holding them expired.")
	quorumRetries = metric.Counter("energy_ingest_archive_quorum_retries_total",
		"Archive inserts sent again (cluster mode) because another quorum insert was pending or the quorum's outcome was unknown.")
)
