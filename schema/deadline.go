package schema

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Timeouts bound every ClickHouse call, so that a stalled server turns into an error the API
// answers with 503 instead of a request that hangs. A call whose context ends earlier keeps
// the earlier end.
type Timeouts struct {
	Read    time.Duration // SELECTs and pings
	Write   time.Duration // one INSERT batch, ALTER or other statement
	Migrate time.Duration // one migration statement (DDL on a cluster may wait for every node)
}

// DefaultTimeouts are the bounds used when none are configured.
var DefaultTimeouts = Timeouts{Read: 10 * time.Second, Write: time.Minute, Migrate: 5 * time.Minute}

func (t Timeouts) orDefaults() Timeouts {
	t.Read = OrDefault(t.Read, DefaultTimeouts.Read)
	t.Write = OrDefault(t.Write, DefaultTimeouts.Write)
	t.Migrate = OrDefault(t.Migrate, DefaultTimeouts.Migrate)
	return t
}

type callTimeoutKey struct{}

// WithCallTimeout makes every ClickHouse call made with ctx use d instead of the configured
// read or write bound (migrations, long maintenance statements).
func WithCallTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, callTimeoutKey{}, d)
}

// bound returns ctx limited to the call's timeout and the function that releases it.
func bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if o, ok := ctx.Value(callTimeoutKey{}).(time.Duration); ok && o > 0 {
		d = o
	}
	return context.WithTimeout(ctx, d)
}

// boundedRows releases the call's deadline when the rows are closed: the rows stream from the
// server after Query returns, under the same context.
type boundedRows struct {
	driver.Rows
	cancel context.CancelFunc
}

func (r boundedRows) Close() error {
	err := r.Rows.Close()
	r.cancel()
	return err
}

// boundedRow releases the call's deadline once the row is scanned (the driver reads it then).
type boundedRow struct {
	driver.Row
	cancel context.CancelFunc
}

func (r boundedRow) Scan(dest ...any) error {
	defer r.cancel()
	return r.Row.Scan(dest...)
}

func (r boundedRow) ScanStruct(dest any) error {
	defer r.cancel()
	return r.Row.ScanStruct(dest)
}
