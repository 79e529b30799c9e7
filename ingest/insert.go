package ingest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// Fluids of a point of delivery (pods.fluid).
const (
	fluidElec = "ELEC"
	fluidGas  = "GAS"
)

// insertRows writes a validated archive's rows (one Rows per file), one INSERT per table with
// explicit columns. Each table's sort key is the record's identity, so inserting the same rows
// again (a job re-run after a crash) changes nothing that a FINAL read sees.
//
// Each insertTable call names its table constant where it is called: a test checks them
// against the tables whose insert metric series start at 0 (insertedTables).
func insertRows(ctx context.Context, db *schema.DB, tenantID, jobID string, files []Rows, seen time.Time) error {
	err := insertTable(ctx, db, tables.ElecIndexes,
		tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.TS, tables.IndexBeforeChange, tables.Nature, tables.GenerationTS, tables.Dial, tables.Value, tables.JobID),
		keyOrder(files, func(r *Rows) []ElecIndexRow { return r.Elec }, elecKey), func(r *ElecIndexRow) int { return schema.Month(r.TS) },
		func(size int) *elecBlock {
			return &elecBlock{common: newCommon(tenantID, jobID, size), nature: make([]string, size), dial: make([]string, size),
				ts: make([]int64, size), gen: make([]int64, size), value: make([]int64, size), ibc: make([]uint8, size)}
		})
	if err != nil {
		return err
	}
	err = insertTable(ctx, db, tables.GasIndexes,
		tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.TS, tables.IndexBeforeChange, tables.Nature, tables.GenerationTS, tables.Value,
			tables.Unit, tables.ConversionUnits, tables.ConversionFactors, tables.JobID),
		keyOrder(files, func(r *Rows) []GasIndexRow { return r.Gas }, gasKey), func(r *GasIndexRow) int { return schema.Month(r.TS) },
		func(size int) *gasBlock {
			return &gasBlock{common: newCommon(tenantID, jobID, size), nature: make([]string, size), unit: make([]string, size),
				ts: make([]int64, size), gen: make([]int64, size), value: make([]int64, size), ibc: make([]uint8, size),
				units: make([][]string, size), factors: make([][]float64, size)}
		})
	if err != nil {
		return err
	}
	err = insertTable(ctx, db, tables.MaxPowers, tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.TS, tables.GenerationTS, tables.Value, tables.JobID),
		keyOrder(files, func(r *Rows) []MaxPowerRow { return r.MaxPowers }, maxPowerKey), func(r *MaxPowerRow) int { return schema.Month(r.TS) },
		func(size int) *maxPowerBlock {
			return &maxPowerBlock{common: newCommon(tenantID, jobID, size),
				ts: make([]int64, size), gen: make([]int64, size), value: make([]int64, size)}
		})
	if err != nil {
		return err
	}
	err = insertTable(ctx, db, tables.LoadCurvePoints,
		tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.BeginTS, tables.EndTS, tables.GenerationTS, tables.Value, tables.Reliability, tables.MeterReadingDate, tables.JobID),
		keyOrder(files, func(r *Rows) []LoadCurvePointRow { return r.LoadCurvePoints }, pointKey),
		func(r *LoadCurvePointRow) int { return schema.Month(r.BeginTS) }, func(size int) *pointBlock {
			return &pointBlock{common: newCommon(tenantID, jobID, size), begin: make([]int64, size), end: make([]int64, size),
				gen: make([]int64, size), value: make([]int64, size), reliability: make([]uint8, size), day: make([]time.Time, size)}
		})
	if err != nil {
		return err
	}
	pods, err := newPods(ctx, db, tenantID, podsOf(files))
	if err != nil {
		return err
	}
	first := stamp(seen)
	return insertTable(ctx, db, tables.Pods, tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.Fluid, tables.FirstSeenTS),
		[][][3]string{pods}, nil, func(size int) *podBlock {
			return &podBlock{tenant: repeat(tenantID, size), site: make([]string, size), pod: make([]string, size),
				fluid: make([]string, size), first: repeat(first, size)}
		})
}

// insertBlockRows bounds the rows sent at once: the column buffers of one block are reused
// for the next (no growth past the first block), and ClickHouse reads a block while the next
// one is filled. The server squashes the blocks of one INSERT into parts as it sees fit.
var insertBlockRows = 1 << 14

// block holds the columns of up to a block's rows of one table.
type block[T any] interface {
	set(i int, r *T)     // writes r as the block's row i
	columns(n int) []any // the block's first n rows, column by column
}

// insertTable sends the rows of one table and records the latency and the row count. The
// rows of a partitioned table (partition gives a row's partition; nil: the table has one) go
// in one INSERT per group of at most schema.MaxPartitionsPerInsert partitions, sent in turn;
// the job is DONE only once all are in, so a crash between them has the job redone, and the
// INSERTs already in are then repeated, which the table's key makes harmless.
func insertTable[T any, B block[T]](ctx context.Context, db *schema.DB, table, columns string, runs [][]T,
	partition func(*T) int, newBlock func(size int) B) error {
	n := 0
	for _, run := range runs {
		n += len(run)
	}
	if n == 0 {
		return nil
	}
	start := time.Now()
	groups := [][][]T{runs}
	if partition != nil {
		groups = schema.ByPartitions(runs, partition)
	}
	for _, group := range groups {
		if err := insertGroup(ctx, db, table, columns, group, newBlock); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
	}
	insertDuration.WithLabelValues(table).Observe(time.Since(start).Seconds())
	rowsInserted.WithLabelValues(table).Add(float64(n))
	return nil
}

// insertGroup sends rows, a large group split into up to insertStreams INSERTs sent at once
// (ClickHouse writes the parts of an INSERT on one thread: on a 2-core machine the second core
// is otherwise idle while the server writes).
func insertGroup[T any, B block[T]](ctx context.Context, db *schema.DB, table, columns string, runs [][]T,
	newBlock func(size int) B) error {
	n := 0
	for _, run := range runs {
		n += len(run)
	}
	streams := max(1, min(insertStreams, n/minStreamRows))
	errs := make([]error, streams)
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			errs[s] = insertRange(ctx, db, table, columns, runs, newBlock, n*s/streams, n*(s+1)/streams)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// insertStreams bounds the INSERTs of one table sent at once; minStreamRows is the fewest rows
// worth an INSERT of their own (below it, the cost of more INSERTs and parts outweighs the gain).
var (
	insertStreams = runtime.GOMAXPROCS(0)
	minStreamRows = 1 << 17
)

// insertRange sends the rows [lo, hi) of the runs in one INSERT, a block at a time, each
// column appended whole (clickhouse-go takes a column slice in one call, several times cheaper
// than a row of interface values at a time).
func insertRange[T any, B block[T]](ctx context.Context, db *schema.DB, table, columns string, runs [][]T,
	newBlock func(size int) B, lo, hi int) error {
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+table+" ("+columns+")")
	if err != nil {
		return err
	}
	n := hi - lo
	size := min(n, insertBlockRows)
	blk := newBlock(size)
	k, sent := 0, 0
	for r := range rowRange(runs, lo, hi) {
		blk.set(k, r)
		if k++; k < size && sent+k < n {
			continue
		}
		for i, col := range blk.columns(k) {
			if err := b.Column(i).Append(col); err != nil {
				_ = b.Abort()
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
		if sent += k; sent < n {
			if err := b.Flush(); err != nil {
				_ = b.Abort()
				return err
			}
		}
		k = 0
	}
	return b.Send()
}

// common are the columns every reading table starts and ends with (DateTime columns are
// given as Unix seconds).
type common struct {
	tenant, site, pod, job []string
}

func newCommon(tenantID, jobID string, size int) common {
	return common{tenant: repeat(tenantID, size), site: make([]string, size), pod: make([]string, size), job: repeat(jobID, size)}
}

type elecBlock struct {
	common
	nature, dial   []string
	ts, gen, value []int64
	ibc            []uint8
}

func (b *elecBlock) set(i int, r *ElecIndexRow) {
	b.site[i], b.pod[i], b.ts[i], b.ibc[i] = r.SiteID, r.PodID, r.TS.Unix(), flag(r.IndexBeforeChange)
	b.nature[i], b.gen[i], b.dial[i], b.value[i] = r.Nature, r.GenerationTS.Unix(), r.Dial, r.Value
}

func (b *elecBlock) columns(n int) []any {
	return []any{b.tenant[:n], b.site[:n], b.pod[:n], b.ts[:n], b.ibc[:n], b.nature[:n], b.gen[:n], b.dial[:n], b.value[:n], b.job[:n]}
}

type gasBlock struct {
	common
	nature, unit   []string
	ts, gen, value []int64
	ibc            []uint8
	units          [][]string
	factors        [][]float64
}

func (b *gasBlock) set(i int, r *GasIndexRow) {
	b.site[i], b.pod[i], b.ts[i], b.ibc[i] = r.SiteID, r.PodID, r.TS.Unix(), flag(r.IndexBeforeChange)
	b.nature[i], b.gen[i], b.value[i], b.unit[i] = r.Nature, r.GenerationTS.Unix(), r.Value, r.Unit
	b.units[i], b.factors[i] = r.ConversionUnits, r.ConversionFactors
	if b.units[i] == nil {
		b.units[i] = []string{}
	}
	if b.factors[i] == nil {
		b.factors[i] = []float64{}
	}
}

func (b *gasBlock) columns(n int) []any {
	return []any{b.tenant[:n], b.site[:n], b.pod[:n], b.ts[:n], b.ibc[:n], b.nature[:n], b.gen[:n], b.value[:n], b.unit[:n],
		b.units[:n], b.factors[:n], b.job[:n]}
}

type maxPowerBlock struct {
	common
	ts, gen, value []int64
}

func (b *maxPowerBlock) set(i int, r *MaxPowerRow) {
	b.site[i], b.pod[i], b.ts[i], b.gen[i], b.value[i] = r.SiteID, r.PodID, r.TS.Unix(), r.GenerationTS.Unix(), r.Value
}

func (b *maxPowerBlock) columns(n int) []any {
	return []any{b.tenant[:n], b.site[:n], b.pod[:n], b.ts[:n], b.gen[:n], b.value[:n], b.job[:n]}
}

type pointBlock struct {
	common
	begin, end, gen, value []int64
	reliability            []uint8
	day                    []time.Time
}

func (b *pointBlock) set(i int, r *LoadCurvePointRow) {
	b.site[i], b.pod[i], b.begin[i], b.end[i] = r.SiteID, r.PodID, r.BeginTS.Unix(), r.EndTS.Unix()
	b.gen[i], b.value[i], b.reliability[i], b.day[i] = r.GenerationTS.Unix(), r.Value, r.Reliability, r.MeterReadingDate
}

func (b *pointBlock) columns(n int) []any {
	return []any{b.tenant[:n], b.site[:n], b.pod[:n], b.begin[:n], b.end[:n], b.gen[:n], b.value[:n], b.reliability[:n], b.day[:n], b.job[:n]}
}

// podBlock is a block of pods rows: (site, pod, fluid) triples.
type podBlock struct {
	tenant, site, pod, fluid []string
	first                    []time.Time
}

func (b *podBlock) set(i int, p *[3]string) { b.site[i], b.pod[i], b.fluid[i] = p[0], p[1], p[2] }

func (b *podBlock) columns(n int) []any {
	return []any{b.tenant[:n], b.site[:n], b.pod[:n], b.fluid[:n], b.first[:n]}
}

// rowRange yields the rows [lo, hi) of the runs, numbered across them in turn.
func rowRange[T any](runs [][]T, lo, hi int) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for _, run := range runs {
			if lo >= len(run) {
				lo, hi = lo-len(run), hi-len(run)
				continue
			}
			for k := lo; k < min(hi, len(run)); k++ {
				if !yield(&run[k]) {
					return
				}
			}
			if hi <= len(run) {
				return
			}
			lo, hi = 0, hi-len(run)
		}
	}
}

func repeat[T any](v T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// podsOf lists the distinct (site, pod, fluid) of the rows.
func podsOf(files []Rows) [][3]string {
	seen := map[[3]string]bool{}
	var out [][3]string
	add := func(site, pod, fluid string) {
		k := [3]string{site, pod, fluid}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, rows := range files {
		for _, r := range rows.Elec {
			add(r.SiteID, r.PodID, fluidElec)
		}
		for _, r := range rows.MaxPowers {
			add(r.SiteID, r.PodID, fluidElec)
		}
		for _, r := range rows.LoadCurvePoints {
			add(r.SiteID, r.PodID, fluidElec)
		}
		for _, r := range rows.Gas {
			add(r.SiteID, r.PodID, fluidGas)
		}
	}
	return out
}

// newPods keeps the pods the tenant does not have yet, so first_seen_ts stays the first.
func newPods(ctx context.Context, db *schema.DB, tenantID string, pods [][3]string) ([][3]string, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	rows, err := db.Conn.Query(ctx, "SELECT "+tables.List(tables.SiteID, tables.PodID, tables.Fluid)+" FROM "+tables.Pods+" FINAL WHERE "+tables.TenantID+" = ?", tenantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	known := map[[3]string]bool{}
	for rows.Next() {
		var k [3]string
		if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
			return nil, err
		}
		known[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out [][3]string
	for _, p := range pods {
		if !known[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
