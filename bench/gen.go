// Package bench holds the reproducible benchmarks of the service and their data generator.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"energy/bench/synth"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"

	"github.com/ClickHouse/clickhouse-go/v2"
	"golang.org/x/sync/errgroup"
)

// Data set of the consumption benchmark: one tenant, one HPHC tariff and Sites sites, each with
// one year of 30-minute load-curve points and the daily smart indexes of its two dials.
const (
	Tenant   = "bench"
	TariffID = "BENCH-HPHC"
	Timezone = synth.Timezone
	jobID    = "bench-generator"
	// SitesPerBatch keeps one insert around 0.9 M load-curve rows.
	SitesPerBatch = 50
)

// SiteID is the id of the i-th benchmark site.
func SiteID(i int) string { return fmt.Sprintf("B%04d", i) }

func podID(i int) string { return fmt.Sprintf("PDL%011d", 40000000000+i) }

// Spec sizes the data set.
type Spec struct {
	Sites int
	Year  int // local calendar year of the readings
}

// PointsPerSite is the number of load-curve points of one site (46 or 50 on DST days).
func (s Spec) PointsPerSite() int {
	loc, _ := time.LoadLocation(Timezone)
	from := time.Date(s.Year, 1, 1, 0, 0, 0, 0, loc)
	return int(time.Date(s.Year+1, 1, 1, 0, 0, 0, 0, loc).Sub(from) / synth.Step)
}

// IndexesPerSite is the number of index rows of one site: a reading per dial at every local
// midnight from January 1st to the next January 1st included.
func (s Spec) IndexesPerSite() int {
	loc, _ := time.LoadLocation(Timezone)
	days := int(time.Date(s.Year+1, 1, 1, 12, 0, 0, 0, loc).Sub(time.Date(s.Year, 1, 1, 12, 0, 0, 0, loc)).Hours()/24 + 0.5)
	return 2 * (days + 1)
}

// Present reports whether the data set is already loaded in full (so a rerun skips loading).
func Present(ctx context.Context, db *schema.DB, s Spec) (bool, error) {
	var points, indexes uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.LoadCurvePoints+" WHERE tenant_id = ?", Tenant).Scan(&points); err != nil {
		return false, err
	}
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.ElecIndexes+" WHERE tenant_id = ?", Tenant).Scan(&indexes); err != nil {
		return false, err
	}
	return points == uint64(s.Sites*s.PointsPerSite()) && indexes == uint64(s.Sites*s.IndexesPerSite()), nil
}

// Tariff is the contract of every benchmark site.
func Tariff(year int) registry.Tariff {
	carbon := 0.052
	return registry.Tariff{
		TenantID: Tenant, TariffID: TariffID, Option: registry.OptionHPHC,
		DialHeadings:   map[string]string{synth.DialHC: "HC", synth.DialHP: "HP"},
		HeadingGroups:  map[string]string{"HC": "HC", "HP": "HP"},
		TimeOfUse:      []registry.TimeOfUse{{From: fmt.Sprintf("%02d:00", synth.HCFrom), To: fmt.Sprintf("%02d:00", synth.HCTo), Heading: "HC"}},
		DefaultHeading: "HP",
		Prices: []registry.PricePeriod{
			{ValidFrom: fmt.Sprintf("%d-01-01", year-1), ByHeading: map[string]float64{"HC": 0.2068, "HP": 0.2700}},
			{ValidFrom: fmt.Sprintf("%d-08-01", year), ByHeading: map[string]float64{"HC": 0.2088, "HP": 0.2712}},
		},
		StandingCharges:   []registry.StandingChargePeriod{{ValidFrom: fmt.Sprintf("%d-01-01", year-1), Yearly: map[string]float64{"subscription": 151.20, "cta": 21.35}}},
		CarbonCoefficient: &carbon,
	}
}

// Generate loads the data set: Register, then LoadReadings.
func Generate(ctx context.Context, db *schema.DB, reg *registry.Store, s Spec, progress func(done int)) error {
	if err := Register(ctx, reg, s); err != nil {
		return err
	}
	return LoadReadings(ctx, db, s, progress)
}

// Register puts the data set's tariff and sites in the registry (timed apart from the readings:
// another store loading the same readings has no registry to fill).
func Register(ctx context.Context, reg *registry.Store, s Spec) error {
	if err := reg.PutTariff(ctx, Tariff(s.Year)); err != nil {
		return fmt.Errorf("tariff: %w", err)
	}
	return putSites(ctx, reg, s.Sites)
}

// LoadReadings inserts the data set's readings with column-wise PrepareBatch inserts of
// SitesPerBatch sites each. Batches are generated in their own goroutine while earlier ones are
// inserted, by loadInserts inserts at a time (one insert keeps one ClickHouse core busy), so
// that a large fleet (10,000 sites: 176 M points) loads at the server's rate rather than at the
// sum of both. progress, when not nil, gets the number of sites loaded so far.
func LoadReadings(ctx context.Context, db *schema.DB, s Spec, progress func(done int)) error {
	g, ctx := errgroup.WithContext(ctx)
	batches := make(chan *Batch)
	g.Go(func() error { return GenerateBatches(ctx, s, loadInserts+2, batches) })
	var mu sync.Mutex
	done := 0
	for range loadInserts {
		g.Go(func() error {
			for b := range batches {
				if err := b.Curve.insert(ctx, db); err != nil {
					return fmt.Errorf("load curves of sites %d-%d: %w", b.First, b.Last-1, err)
				}
				if err := b.Indexes.insert(ctx, db); err != nil {
					return fmt.Errorf("indexes of sites %d-%d: %w", b.First, b.Last-1, err)
				}
				b.Release()
				mu.Lock()
				done += b.Last - b.First
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
			return nil
		})
	}
	return g.Wait()
}

// loadInserts is how many batches Generate inserts at once.
const loadInserts = 2

func putSites(ctx context.Context, reg *registry.Store, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				s := registry.Site{TenantID: Tenant, SiteID: SiteID(i), Timezone: Timezone, TariffID: TariffID, HeatingFluid: registry.HeatingElec}
				err := reg.PutSite(ctx, s)
				for try := 1; err != nil && try < 3 && ctx.Err() == nil; try++ {
					// On a loaded machine a call now and then finds its pooled connection closed
					// under it ("use of closed network connection"); PutSite is idempotent.
					err = reg.PutSite(ctx, s)
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("site %s: %w", s.SiteID, err):
					default:
					}
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// GenerateSites makes the readings of sites [first, last), site after site and in time order
// within a site: the rows LoadReadings inserts.
func GenerateSites(first, last, year int) (*CurveColumns, *IndexColumns, error) {
	loc, err := time.LoadLocation(Timezone)
	if err != nil {
		return nil, nil, err
	}
	var curve CurveColumns
	var idx IndexColumns
	generateInto(first, last, year, loc, &curve, &idx)
	return &curve, &idx, nil
}

// generateInto replaces the rows of curve and idx by those of sites [first, last), keeping the
// memory of their columns.
func generateInto(first, last, year int, loc *time.Location, curve *CurveColumns, idx *IndexColumns) {
	// Columns sized up front: growing them by append copied each ~10 times over (most of the
	// generator's time).
	spec := Spec{Sites: last - first, Year: year}
	curve.reset(spec.Sites * spec.PointsPerSite())
	idx.reset(spec.Sites * spec.IndexesPerSite())
	for i := first; i < last; i++ {
		generateSite(i, year, loc, curve, idx)
	}
}

// generateSite appends site i's year (synth.Walk): 30-minute average powers (even watts, so
// that a point's energy, W × 0.5 h, is a whole number of Wh) and, at each local midnight, the
// cumulative index of each dial, equal to the start index plus the curve's energy so far in
// that dial's hours. A point's shape depends only on its local half-hour of the day (daySlots),
// the season only on the day, so the calendar and the transcendental functions are worked out
// once per day or once per half-hour, not per point (TestGeneratedRowsNeverChange pins the rows).
func generateSite(i, year int, loc *time.Location, curve *CurveColumns, idx *IndexColumns) {
	rng := rand.New(rand.NewPCG(uint64(i), 2024))
	site, pod := SiteID(i), podID(i)
	base := 120 + float64(i%17)*15
	heating := 600 + float64(i%7)*250
	waterHeater := i%3 == 0
	index := map[string]int64{synth.DialHC: 5_000_000 + int64(i)*1000, synth.DialHP: 9_000_000 + int64(i)*1500}

	var season float64
	var generation, meterDay time.Time
	end := time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)
	synth.Walk(time.Date(year, 1, 1, 0, 0, 0, 0, loc), end,
		func(day, _ time.Time) {
			idx.add(site, pod, day, index)
			season = math.Max(0, math.Cos(2*math.Pi*float64(day.YearDay()-15)/365)) // 1 mid-January, 0 from spring to autumn
			generation = time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 0, 0, time.UTC)
			meterDay = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		},
		func(t time.Time, slot int) {
			s := &daySlots[slot]
			w := base + heating*season*(0.6+0.4*s.dayCos)
			w += 900 * s.morning
			w += 1400 * s.evening
			if waterHeater && (s.h >= 23 || s.h < 2) {
				w += 2200
			}
			w += rng.Float64() * 80
			watts := int64(w/2) * 2
			curve.add(site, pod, t, watts, generation, meterDay)
			index[synth.Dial(slot)] += synth.Wh(watts)
		})
	idx.add(site, pod, end, index)
}

// daySlot is what a point's power depends on in its local half-hour of the day.
type daySlot struct {
	h                float64 // local hours since midnight
	dayCos           float64 // the daily heating cycle, lowest at 17:00
	morning, evening float64 // the morning and evening peaks, up to 1
}

// daySlots are the local half-hours of a day.
var daySlots = func() (slots [synth.SlotsPerDay]daySlot) {
	for k := range slots {
		h := float64(k) / 2
		slots[k] = daySlot{h: h, dayCos: math.Cos(2 * math.Pi * (h - 5) / 24),
			morning: math.Exp(-math.Pow(h-7.5, 2) / 1.5), evening: math.Exp(-math.Pow(h-19.5, 2) / 3)}
	}
	return slots
}()

// CurveColumns are load-curve points, column by column (the columns of load_curve_points).
type CurveColumns struct {
	Tenant, Site, Pod, Job      []string
	Begin, End, Generation, Day []time.Time // Day: the local meter-reading date, as a UTC midnight
	Value                       []int64     // W
	Reliability                 []uint8
}

// reset empties the columns and makes room for n rows.
func (c *CurveColumns) reset(n int) {
	for _, col := range []*[]string{&c.Tenant, &c.Site, &c.Pod, &c.Job} {
		*col = slices.Grow((*col)[:0], n)
	}
	for _, col := range []*[]time.Time{&c.Begin, &c.End, &c.Generation, &c.Day} {
		*col = slices.Grow((*col)[:0], n)
	}
	c.Value = slices.Grow(c.Value[:0], n)
	c.Reliability = slices.Grow(c.Reliability[:0], n)
}

// add appends one point; begin is in UTC, generation and day are the same for a whole local day.
func (c *CurveColumns) add(site, pod string, begin time.Time, watts int64, generation, day time.Time) {
	c.Tenant = append(c.Tenant, Tenant)
	c.Site = append(c.Site, site)
	c.Pod = append(c.Pod, pod)
	c.Begin = append(c.Begin, begin)
	c.End = append(c.End, begin.Add(synth.Step))
	c.Generation = append(c.Generation, generation)
	c.Value = append(c.Value, watts)
	c.Reliability = append(c.Reliability, 0)
	c.Day = append(c.Day, day)
	c.Job = append(c.Job, jobID)
}

func (c *CurveColumns) insert(ctx context.Context, db *schema.DB) error {
	return insertColumns(ctx, db, "INSERT INTO "+tables.LoadCurvePoints+" (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)",
		c.Tenant, c.Site, c.Pod, c.Begin, c.End, c.Generation, c.Value, c.Reliability, c.Day, c.Job)
}

// IndexColumns are smart index readings, column by column (the columns of elec_indexes).
type IndexColumns struct {
	Tenant, Site, Pod, Nature, Dial, Job []string
	TS, Generation                       []time.Time
	IndexBeforeChange                    []uint8
	Value                                []int64 // Wh
}

// reset empties the columns and makes room for n rows.
func (c *IndexColumns) reset(n int) {
	for _, col := range []*[]string{&c.Tenant, &c.Site, &c.Pod, &c.Nature, &c.Dial, &c.Job} {
		*col = slices.Grow((*col)[:0], n)
	}
	c.TS = slices.Grow(c.TS[:0], n)
	c.Generation = slices.Grow(c.Generation[:0], n)
	c.IndexBeforeChange = slices.Grow(c.IndexBeforeChange[:0], n)
	c.Value = slices.Grow(c.Value[:0], n)
}

func (c *IndexColumns) add(site, pod string, ts time.Time, index map[string]int64) {
	for _, dial := range []string{synth.DialHC, synth.DialHP} {
		c.Tenant = append(c.Tenant, Tenant)
		c.Site = append(c.Site, site)
		c.Pod = append(c.Pod, pod)
		c.TS = append(c.TS, ts.UTC())
		c.IndexBeforeChange = append(c.IndexBeforeChange, 0)
		c.Nature = append(c.Nature, "MKT_SMART_DISTRIBUTOR")
		c.Generation = append(c.Generation, ts.Add(6*time.Hour).UTC())
		c.Dial = append(c.Dial, dial)
		c.Value = append(c.Value, index[dial])
		c.Job = append(c.Job, jobID)
	}
}

func (c *IndexColumns) insert(ctx context.Context, db *schema.DB) error {
	return insertColumns(ctx, db, "INSERT INTO "+tables.ElecIndexes+" (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)",
		c.Tenant, c.Site, c.Pod, c.TS, c.IndexBeforeChange, c.Nature, c.Generation, c.Dial, c.Value, c.Job)
}

// insertColumns sends one batch, column by column (far faster than row appends). A batch
// refused because merges lag behind the inserts (too many parts in a partition: ClickHouse checks
// before writing anything) is sent again after a pause, so that a large fleet loads on a slow or
// busy machine.
func insertColumns(ctx context.Context, db *schema.DB, insert string, columns ...any) error {
	wait := time.Second
	for try := 1; ; try++ {
		err := insertColumnsOnce(ctx, db, insert, columns...)
		var ex *clickhouse.Exception
		if !errors.As(err, &ex) || ex.Code != tooManyParts || try == 10 { // 10 tries: about 3 minutes
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// tooManyParts is ClickHouse's TOO_MANY_PARTS error code.
const tooManyParts = 252

func insertColumnsOnce(ctx context.Context, db *schema.DB, insert string, columns ...any) error {
	b, err := db.Conn.PrepareBatch(ctx, insert)
	if err != nil {
		return err
	}
	rows := columnLen(columns[0])
	for lo := 0; lo < rows; lo += insertChunk {
		hi := min(lo+insertChunk, rows)
		for i, col := range columns {
			if err := b.Column(i).Append(columnSlice(col, lo, hi)); err != nil {
				_ = b.Abort()
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
		if hi < rows {
			if err := b.Flush(); err != nil {
				_ = b.Abort()
				return err
			}
		}
	}
	return b.Send()
}

// insertChunk is how many rows of a batch insertColumnsOnce encodes before sending them. The
// driver's column buffers are then reused from chunk to chunk instead of growing to a whole
// batch (that growth, on fresh memory pages, took most of the loader's CPU: loading 300 sites in
// a fresh process on the shared machine took 8.0-8.5 s of its CPU in chunks of 65,536 rows,
// 4.5-6.5 s in chunks of 8,192 or 2,048; 200 sites unchunked 11-14 s), and the server receives
// rows while the next are encoded. The server gathers
// the rows of one INSERT into blocks of about a million (min_insert_block_size_rows) before
// writing parts, so a batch still makes one part per month it covers.
const insertChunk = 8192

func columnLen(col any) int {
	switch c := col.(type) {
	case []string:
		return len(c)
	case []time.Time:
		return len(c)
	case []int64:
		return len(c)
	case []uint8:
		return len(c)
	}
	panic(fmt.Sprintf("column of %T", col))
}

func columnSlice(col any, lo, hi int) any {
	switch c := col.(type) {
	case []string:
		return c[lo:hi]
	case []time.Time:
		return c[lo:hi]
	case []int64:
		return c[lo:hi]
	case []uint8:
		return c[lo:hi]
	}
	panic(fmt.Sprintf("column of %T", col))
}

// settledTables are the tables the benchmarks' reads use, merged before measuring.
var settledTables = []string{tables.LoadCurvePoints, tables.ElecIndexes, tables.ElecIndexesBySite, tables.Sites, tables.Tariffs}

// Optimize merges the readings tables so that every run measures the same, settled storage
// (queries use FINAL and never depend on merges; merged parts only make them cheaper).
func Optimize(ctx context.Context, db *schema.DB) error {
	parts, err := settledPartitions(ctx, db, false)
	if err != nil {
		return err
	}
	return optimizePartitions(ctx, db, parts)
}

// Settle merges the partitions of a reused data set that hold more than one part: a table a
// migration added and filled since the data set was generated (elec_indexes_by_site in a data
// set older than it), so that its measures are those of merged storage too. A settled data set
// costs one query.
func Settle(ctx context.Context, db *schema.DB) error {
	parts, err := settledPartitions(ctx, db, true)
	if err != nil {
		return err
	}
	return optimizePartitions(ctx, db, parts)
}

// partition is one partition of a table.
type partition struct{ table, id string }

// settledPartitions lists the active partitions of settledTables, the largest first; with
// unmergedOnly, those holding more than one part.
func settledPartitions(ctx context.Context, db *schema.DB, unmergedOnly bool) ([]partition, error) {
	having := ""
	if unmergedOnly {
		having = " HAVING count() > 1"
	}
	rows, err := db.Conn.Query(ctx, "SELECT table, partition_id FROM system.parts WHERE active AND database = currentDatabase() AND has(?, table) GROUP BY table, partition_id"+having+" ORDER BY sum(rows) DESC", settledTables)
	if err != nil {
		return nil, fmt.Errorf("partitions to merge: %w", err)
	}
	defer rows.Close()
	var parts []partition
	for rows.Next() {
		var p partition
		if err := rows.Scan(&p.table, &p.id); err != nil {
			return nil, fmt.Errorf("partitions to merge: %w", err)
		}
		parts = append(parts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("partitions to merge: %w", err)
	}
	return parts, nil
}

// optimizePartitions merges each partition whole by its own OPTIMIZE … FINAL, optimizeAtOnce at
// a time: one merge keeps one core busy, and a table's whole OPTIMIZE merges its partitions one
// after the other.
func optimizePartitions(ctx context.Context, db *schema.DB, parts []partition) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(optimizeAtOnce)
	for _, p := range parts {
		g.Go(func() error {
			if err := db.Conn.Exec(ctx, "OPTIMIZE TABLE "+p.table+" PARTITION ID ? FINAL", p.id); err != nil { // a name of settledTables
				return fmt.Errorf("optimize %s partition %s: %w", p.table, p.id, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// optimizeAtOnce is how many partitions Optimize merges at once.
const optimizeAtOnce = 2
