package schema

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"energy/schema/metric"
)

// operations label the ClickHouse call series; each has its series from the start, so that a
// dashboard shows "0 errors" rather than no data on a healthy service.
var operations = []string{"query", "exec", "insert"}

var (
	queryDuration = metric.HistogramVec("energy_clickhouse_query_duration_seconds",
		"Latency of ClickHouse calls by operation (query, exec, insert).",
		[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}, "op", operations...)
	queryErrors = metric.CounterVec("energy_clickhouse_errors_total",
		"ClickHouse calls that failed, by operation.", "op", operations...)
)

// instrumentedConn records latency and errors of every call and runs each one under its
// deadline (Timeouts).
type instrumentedConn struct {
	driver.Conn
	timeouts Timeouts
}

func instrument(c driver.Conn, t Timeouts) driver.Conn {
	return instrumentedConn{Conn: c, timeouts: t.orDefaults()}
}

func observe(op string, start time.Time, err error) {
	queryDuration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		queryErrors.WithLabelValues(op).Inc()
	}
}

func (c instrumentedConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	countQuery(ctx)
	start := time.Now()
	ctx, cancel := bound(ctx, c.timeouts.Read)
	rows, err := c.Conn.Query(ctx, q, args...)
	observe("query", start, err)
	if err != nil {
		cancel()
		return nil, err
	}
	return boundedRows{Rows: rows, cancel: cancel}, nil
}

func (c instrumentedConn) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	countQuery(ctx)
	start := time.Now()
	ctx, cancel := bound(ctx, c.timeouts.Read)
	row := c.Conn.QueryRow(ctx, q, args...)
	observe("query", start, row.Err())
	if row.Err() != nil {
		cancel()
		return row
	}
	return boundedRow{Row: row, cancel: cancel}
}

func (c instrumentedConn) Select(ctx context.Context, dest any, q string, args ...any) error {
	countQuery(ctx)
	start := time.Now()
	ctx, cancel := bound(ctx, c.timeouts.Read)
	defer cancel()
	err := c.Conn.Select(ctx, dest, q, args...)
	observe("query", start, err)
	return err
}

func (c instrumentedConn) Exec(ctx context.Context, q string, args ...any) error {
	start := time.Now()
	ctx, cancel := bound(ctx, c.timeouts.Write)
	defer cancel()
	err := c.Conn.Exec(ctx, q, args...)
	observe("exec", start, err)
	return err
}

func (c instrumentedConn) Ping(ctx context.Context) error {
	ctx, cancel := bound(ctx, c.timeouts.Read)
	defer cancel()
	return c.Conn.Ping(ctx)
}

func (c instrumentedConn) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	ctx, cancel := bound(ctx, c.timeouts.Write)
	bctx := newBatchContext(ctx)
	release := func() { bctx.end(); cancel() }
	b, err := c.Conn.PrepareBatch(bctx, q, opts...)
	if err != nil {
		release()
		queryErrors.WithLabelValues("insert").Inc()
		return nil, err
	}
	return instrumentedBatch{Batch: b, start: time.Now(), release: release}, nil
}

// instrumentedBatch times the batch from its preparation to its Send; the write deadline
// covers the same span (batchContext says why the driver's context outlives it).
type instrumentedBatch struct {
	driver.Batch
	start   time.Time
	release func()
}

func (b instrumentedBatch) Send() error {
	defer b.release()
	err := b.Batch.Send()
	observe("insert", b.start, err)
	return err
}

func (b instrumentedBatch) Abort() error {
	defer b.release()
	return b.Batch.Abort()
}

func (b instrumentedBatch) Close() error {
	defer b.release()
	return b.Batch.Close()
}
