package chtest

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"energy/schema"
	"energy/schema/chdb"
)

// SendInsertsTo26 makes every INSERT the test then sends through db's batches (PrepareBatch
// to Send) run on ClickHouse 26.x too when ENERGY_COMPAT_CHECK=1: the same statement with the
// same rows, into a database of the same schema on the in-process engine. An INSERT that 26.x
// refuses (one touching more partitions than its max_partitions_per_insert_block, say) fails
// the test. The rows compared at the end are still 18.16's, copied as every test's are; these
// INSERTs only prove that the code's own statements are accepted as it sends them. Without
// ENERGY_COMPAT_CHECK=1 it does nothing.
func SendInsertsTo26(t testing.TB, db *schema.DB) {
	t.Helper()
	if !compatEnabled() {
		return
	}
	rc, ok := db.Conn.(recordingConn)
	if !ok {
		t.Fatal("SendInsertsTo26 needs a database from chtest.DB")
	}
	engine, err := compatEngine()
	if err != nil {
		t.Fatalf("ClickHouse 26.x: %v", err)
	}
	into := db.Name + "_inserts"
	err = MigrateInProcess(engine, into)
	if _, uerr := engine.Query("USE "+db.Name, "TabSeparated"); err == nil { // the replay reads db.Name's tables
		err = uerr
	}
	if err != nil {
		t.Fatalf("ClickHouse 26.x: %v", err)
	}
	t.Cleanup(func() { _, _ = engine.Query("DROP DATABASE IF EXISTS "+into, "TabSeparated") })
	rc.rec.mu.Lock()
	rc.rec.inserts = &insertCopy{t: t, engine: engine, database: into}
	rc.rec.mu.Unlock()
}

// insertCopy sends a test's INSERTs to the in-process engine.
type insertCopy struct {
	t        testing.TB
	engine   *chdb.Session
	database string
}

var insertInto = regexp.MustCompile(`(?is)^\s*INSERT\s+INTO\s+([A-Za-z0-9_]+)\s*(\(.*\))\s*$`)

func (c recordingConn) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	b, err := c.Conn.PrepareBatch(ctx, q, opts...)
	c.rec.mu.Lock()
	to := c.rec.inserts
	c.rec.mu.Unlock()
	if err != nil || to == nil {
		return b, err
	}
	m := insertInto.FindStringSubmatch(q)
	if m == nil {
		to.t.Errorf("an INSERT chtest cannot send to 26.x: %s", q)
		return b, nil
	}
	return &copiedBatch{Batch: b, to: to, statement: "INSERT INTO " + to.database + "." + m[1] + " " + m[2] + " VALUES "}, nil
}

// copiedBatch keeps the rows appended to a batch as SQL literals, and sends them to 26.x in one
// INSERT once the batch is sent.
type copiedBatch struct {
	driver.Batch
	to        *insertCopy
	statement string

	mu      sync.Mutex
	rows    []string   // rows appended whole
	columns [][]string // values appended column by column
	err     error
}

func (b *copiedBatch) Append(v ...any) error {
	parts := make([]string, len(v))
	for i, x := range v {
		b.literal(&parts[i], x)
	}
	b.mu.Lock()
	b.rows = append(b.rows, "("+strings.Join(parts, ", ")+")")
	b.mu.Unlock()
	return b.Batch.Append(v...)
}

func (b *copiedBatch) literal(dst *string, v any) {
	s, err := literal(v)
	if err != nil {
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
	}
	*dst = s
}

func (b *copiedBatch) Column(i int) driver.BatchColumn {
	return copiedColumn{BatchColumn: b.Batch.Column(i), b: b, i: i}
}

// appendColumn keeps the values of column i (a slice: its elements are copied now, the caller
// may reuse it).
func (b *copiedBatch) appendColumn(i int, v any, whole bool) {
	var vals []string
	rv := reflect.ValueOf(v)
	if whole && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) {
		vals = make([]string, rv.Len())
		for k := range vals {
			b.literal(&vals[k], rv.Index(k).Interface())
		}
	} else {
		vals = make([]string, 1)
		b.literal(&vals[0], v)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.columns) <= i {
		b.columns = append(b.columns, nil)
	}
	b.columns[i] = append(b.columns[i], vals...)
}

func (b *copiedBatch) Send() error {
	if err := b.Batch.Send(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		b.to.t.Errorf("an INSERT not sent to 26.x: %v", b.err)
		return nil
	}
	rows := b.rows
	if len(b.columns) > 0 {
		for r := range b.columns[0] {
			vals := make([]string, len(b.columns))
			for i, col := range b.columns {
				if r < len(col) {
					vals[i] = col[r]
				}
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := b.to.engine.Query(b.statement+strings.Join(rows, ", "), "TabSeparated"); err != nil {
		b.to.t.Errorf("ClickHouse 26.x refuses an INSERT that 18.16 took (%d rows): %v\n%s", len(rows), err, b.statement)
	}
	return nil
}

// copiedColumn keeps what is appended to one column of a copiedBatch.
type copiedColumn struct {
	driver.BatchColumn
	b *copiedBatch
	i int
}

func (c copiedColumn) Append(v any) error {
	c.b.appendColumn(c.i, v, true)
	return c.BatchColumn.Append(v)
}

func (c copiedColumn) AppendRow(v any) error {
	c.b.appendColumn(c.i, v, false)
	return c.BatchColumn.AppendRow(v)
}
