package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"energy/bench"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"
)

// pgTables are the two readings tables with the columns of their ClickHouse twins (so that
// sizes compare like for like), fixed-width columns first so that no row carries alignment
// padding. UTC instants are timestamptz.
var pgTables = []string{
	`CREATE TABLE load_curve_points (
  begin_ts timestamptz NOT NULL, end_ts timestamptz NOT NULL, generation_ts timestamptz NOT NULL,
  value bigint NOT NULL, meter_reading_date date NOT NULL, reliability smallint NOT NULL,
  tenant_id text NOT NULL, site_id text NOT NULL, pod_id text NOT NULL, job_id text NOT NULL)`,
	`CREATE TABLE elec_indexes (
  ts timestamptz NOT NULL, generation_ts timestamptz NOT NULL, value bigint NOT NULL,
  index_before_change boolean NOT NULL,
  tenant_id text NOT NULL, site_id text NOT NULL, pod_id text NOT NULL, nature text NOT NULL, dial text NOT NULL, job_id text NOT NULL)`,
}

// pgIndexes are one btree per table whose order is the one the reads want: a site's rows by
// dial and time, the latest generation first, so that DISTINCT ON reads them without sorting.
var pgIndexes = []string{
	"CREATE INDEX load_curve_points_site ON load_curve_points (tenant_id, site_id, begin_ts, generation_ts DESC)",
	"CREATE INDEX elec_indexes_site ON elec_indexes (tenant_id, site_id, dial, ts, generation_ts DESC)",
}

const (
	pgCurveCopy = "COPY load_curve_points (begin_ts, end_ts, generation_ts, value, meter_reading_date, reliability, tenant_id, site_id, pod_id, job_id) FROM STDIN WITH (FREEZE)"
	pgIndexCopy = "COPY elec_indexes (ts, generation_ts, value, index_before_change, tenant_id, site_id, pod_id, nature, dial, job_id) FROM STDIN WITH (FREEZE)"
)

// pgLoad is how long each phase of the PostgreSQL load took and what it left on disk.
type pgLoad struct {
	copyTime, indexTime, analyzeTime time.Duration
	curveBytes, indexesBytes         int64 // heap, btree and TOAST of each table
}

func (l pgLoad) total() time.Duration { return l.copyTime + l.indexTime + l.analyzeTime }

// loadPostgres loads the data set as a competent PostgreSQL user would: the rows of the same
// generator, site after site (generated ahead of COPY in their own goroutine, as for ClickHouse),
// with COPY … FREEZE in the transaction that creates the tables (rows written frozen and
// all-visible, no WAL with wal_level minimal, no later VACUUM needed), then the btree indexes
// built once over the whole tables (by parallel workers), then ANALYZE. One session: FREEZE and
// the skipped WAL both need the table created in the copying transaction, which no other session
// can write to; parallel sessions would write the heap a second time as WAL and leave every row
// to be frozen or hinted later.
func loadPostgres(ctx context.Context, conn *pgx.Conn, spec bench.Spec) (pgLoad, error) {
	var l pgLoad
	start := time.Now()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return l, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, ddl := range pgTables {
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return l, err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan *bench.Batch)
	g.Go(func() error { return bench.GenerateBatches(gctx, spec, 3, batches) })
	g.Go(func() error {
		var buf bytes.Buffer
		for b := range batches {
			buf.Reset()
			for i := range b.Curve.Value {
				appendCurveRow(&buf, b.Curve, i)
			}
			if _, err := conn.PgConn().CopyFrom(gctx, &buf, pgCurveCopy); err != nil {
				return fmt.Errorf("copy load curves of sites %d-%d: %w", b.First, b.Last-1, err)
			}
			buf.Reset()
			for i := range b.Indexes.Value {
				appendIndexRow(&buf, b.Indexes, i)
			}
			if _, err := conn.PgConn().CopyFrom(gctx, &buf, pgIndexCopy); err != nil {
				return fmt.Errorf("copy indexes of sites %d-%d: %w", b.First, b.Last-1, err)
			}
			b.Release()
			if b.Last%200 == 0 || b.Last == spec.Sites {
				logf("  PostgreSQL: %d sites copied (%.0f s)", b.Last, time.Since(start).Seconds())
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return l, err
	}
	if err := tx.Commit(ctx); err != nil {
		return l, err
	}
	l.copyTime = time.Since(start)
	start = time.Now()
	for _, ddl := range pgIndexes {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			return l, err
		}
	}
	l.indexTime = time.Since(start)
	start = time.Now()
	if _, err := conn.Exec(ctx, "ANALYZE load_curve_points, elec_indexes"); err != nil {
		return l, err
	}
	l.analyzeTime = time.Since(start)
	err = conn.QueryRow(ctx, "SELECT pg_total_relation_size('load_curve_points'), pg_total_relation_size('elec_indexes')").Scan(&l.curveBytes, &l.indexesBytes)
	return l, err
}

// appendCurveRow writes point i in COPY's text format, in pgCurveCopy's column order.
func appendCurveRow(b *bytes.Buffer, c *bench.CurveColumns, i int) {
	appendTimestamp(b, c.Begin[i])
	b.WriteByte('\t')
	appendTimestamp(b, c.End[i])
	b.WriteByte('\t')
	appendTimestamp(b, c.Generation[i])
	b.WriteByte('\t')
	b.Write(strconv.AppendInt(b.AvailableBuffer(), c.Value[i], 10))
	b.WriteByte('\t')
	b.Write(c.Day[i].AppendFormat(b.AvailableBuffer(), time.DateOnly))
	b.WriteByte('\t')
	b.Write(strconv.AppendUint(b.AvailableBuffer(), uint64(c.Reliability[i]), 10))
	for _, s := range []string{c.Tenant[i], c.Site[i], c.Pod[i], c.Job[i]} {
		b.WriteByte('\t')
		b.WriteString(s) // generated identifiers: no tab, newline or backslash to escape
	}
	b.WriteByte('\n')
}

// appendIndexRow writes index row i in COPY's text format, in pgIndexCopy's column order.
func appendIndexRow(b *bytes.Buffer, c *bench.IndexColumns, i int) {
	appendTimestamp(b, c.TS[i])
	b.WriteByte('\t')
	appendTimestamp(b, c.Generation[i])
	b.WriteByte('\t')
	b.Write(strconv.AppendInt(b.AvailableBuffer(), c.Value[i], 10))
	b.WriteByte('\t')
	if c.IndexBeforeChange[i] != 0 {
		b.WriteByte('t')
	} else {
		b.WriteByte('f')
	}
	for _, s := range []string{c.Tenant[i], c.Site[i], c.Pod[i], c.Nature[i], c.Dial[i], c.Job[i]} {
		b.WriteByte('\t')
		b.WriteString(s)
	}
	b.WriteByte('\n')
}

// appendTimestamp writes t as a UTC timestamptz literal.
func appendTimestamp(b *bytes.Buffer, t time.Time) {
	b.Write(t.UTC().AppendFormat(b.AvailableBuffer(), "2006-01-02 15:04:05+00"))
}
