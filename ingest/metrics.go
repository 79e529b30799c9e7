package ingest

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"energy/schema/tables"
)

var (
	jobsFinished = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_ingest_jobs_total",
		Help: "Archive jobs that reached a final state, by state (DONE, ERROR, TIMEOUT).",
	}, []string{"state"})
	jobsSubmitted = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_jobs_submitted_total",
		Help: "Archives accepted (durably stored, SUBMITTED job written).",
	})
	operationsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_ingest_operations_total",
		Help: "Archive operations (array elements) of DONE jobs, by result (ok, ko).",
	}, []string{"result"})
	rowsInserted = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_ingest_rows_inserted_total",
		Help: "Rows sent to ClickHouse by table (re-sent records count again; FINAL reads see them once).",
	}, []string{"table"})
	insertDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "energy_ingest_insert_duration_seconds",
		Help:    "Latency of one batch insert (prepare, append, send) by table.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"table"})
	jobStateInserts = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_job_state_inserts_total",
		Help: "Inserts into the jobs table: each carries the state changes of the jobs that changed state while the previous one was sent.",
	})
	jobStatesWritten = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_job_states_written_total",
		Help: "Job state changes written to the jobs table (rows of energy_ingest_job_state_inserts_total).",
	})
	processingDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "energy_ingest_job_processing_seconds",
		Help:    "Time from a job's claim by a worker to its final state, by final state.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 300},
	}, []string{"state"})
	jobLatency = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "energy_ingest_job_latency_seconds",
		Help:    "Time from submission to final state, by final state (queueing included).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 300, 600, 1800},
	}, []string{"state"})
	queueDepth = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_ingest_queue_depth",
		Help: "Jobs waiting for a worker (SUBMITTED, or released for a retry).",
	})
	jobsRunning = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_ingest_jobs_running",
		Help: "Jobs being processed by a worker.",
	})
	jobRetries = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_job_retries_total",
		Help: "Jobs put back in the queue after a transient failure (storage unavailable).",
	})
	jobsTakenOver = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_jobs_taken_over_total",
		Help: "Jobs this replica took over (cluster mode) after the lease of the replica holding them expired.",
	})
	quorumRetries = promauto.NewCounter(prometheus.CounterOpts{
		Name: "energy_ingest_archive_quorum_retries_total",
		Help: "Archive inserts sent again (cluster mode) because another quorum insert was pending or the quorum's outcome was unknown.",
	})
)

// insertedTables are the tables an archive's rows go to (the "table" label of the insert metrics).
var insertedTables = []string{tables.ElecIndexes, tables.GasIndexes, tables.MaxPowers, tables.LoadCurvePoints, tables.Pods}

// Every known label value's series exists from the start at 0, so that a dashboard shows 0
// rather than no data before the first job of each kind.
func init() {
	for _, state := range []string{StateDone, StateError, StateTimeout} {
		jobsFinished.WithLabelValues(state)
		processingDuration.WithLabelValues(state)
		jobLatency.WithLabelValues(state)
	}
	for _, result := range []string{"ok", "ko"} {
		operationsTotal.WithLabelValues(result)
	}
	for _, table := range insertedTables {
		rowsInserted.WithLabelValues(table)
		insertDuration.WithLabelValues(table)
	}
}
