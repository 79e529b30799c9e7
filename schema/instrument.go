package schema

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	queryDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "energy_clickhouse_query_duration_seconds",
		Help:    "Latency of ClickHouse calls by operation (query, exec, insert).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
	}, []string{"op"})
	queryErrors = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_clickhouse_errors_total",
		Help: "ClickHouse calls that failed, by operation.",
	}, []string{"op"})
)

// instrumentedConn records latency and errors of every call without changing its behaviour.
type instrumentedConn struct {
	driver.Conn
}

func instrument(c driver.Conn) driver.Conn { return instrumentedConn{c} }

func observe(op string, start time.Time, err error) {
	queryDuration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		queryErrors.WithLabelValues(op).Inc()
	}
}

func (c instrumentedConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	start := time.Now()
	rows, err := c.Conn.Query(ctx, q, args...)
	observe("query", start, err)
	return rows, err
}

func (c instrumentedConn) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	start := time.Now()
	row := c.Conn.QueryRow(ctx, q, args...)
	observe("query", start, row.Err())
	return row
}

func (c instrumentedConn) Select(ctx context.Context, dest any, q string, args ...any) error {
	start := time.Now()
	err := c.Conn.Select(ctx, dest, q, args...)
	observe("query", start, err)
	return err
}

func (c instrumentedConn) Exec(ctx context.Context, q string, args ...any) error {
	start := time.Now()
	err := c.Conn.Exec(ctx, q, args...)
	observe("exec", start, err)
	return err
}

func (c instrumentedConn) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	b, err := c.Conn.PrepareBatch(ctx, q, opts...)
	if err != nil {
		queryErrors.WithLabelValues("insert").Inc()
		return nil, err
	}
	return instrumentedBatch{Batch: b, start: time.Now()}, nil
}

type instrumentedBatch struct {
	driver.Batch
	start time.Time
}

func (b instrumentedBatch) Send() error {
	err := b.Batch.Send()
	observe("insert", b.start, err)
	return err
}
