package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// chTrace counts the ClickHouse calls the service makes and the time they take (from the call
// to the end of reading its rows), to tell how much of a computed answer is spent in ClickHouse.
type chTrace struct {
	calls atomic.Int64
	nanos atomic.Int64
}

func (t *chTrace) record(start time.Time)     { t.calls.Add(1); t.nanos.Add(int64(time.Since(start))) }
func (t *chTrace) snapshot() (int64, float64) { return t.calls.Load(), float64(t.nanos.Load()) }

// tracedConn wraps the service's connection; only reads are traced.
type tracedConn struct {
	driver.Conn
	trace *chTrace
}

func (c tracedConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	start := time.Now()
	rows, err := c.Conn.Query(ctx, q, args...)
	if err != nil {
		c.trace.record(start)
		return rows, err
	}
	return &tracedRows{Rows: rows, start: start, trace: c.trace}, nil
}

func (c tracedConn) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	start := time.Now()
	row := c.Conn.QueryRow(ctx, q, args...)
	c.trace.record(start)
	return row
}

func (c tracedConn) Select(ctx context.Context, dest any, q string, args ...any) error {
	start := time.Now()
	err := c.Conn.Select(ctx, dest, q, args...)
	c.trace.record(start)
	return err
}

type tracedRows struct {
	driver.Rows
	start  time.Time
	trace  *chTrace
	closed bool
}

func (r *tracedRows) Close() error {
	err := r.Rows.Close()
	if !r.closed {
		r.closed = true
		r.trace.record(r.start)
	}
	return err
}
