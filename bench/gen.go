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

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"

	"github.com/ClickHouse/clickhouse-go/v2"
	"golang.org/x/sync/errgroup"
)

// Data set of the consumption benchmark: one tenant, one HPHC tariff and Sites sites, each with
// one year of 30-minute load-curve points and the daily smart indexes of its two dials.
const (
	Tenant    = "bench"
	TariffID  = "BENCH-HPHC"
	Timezone  = "Europe/Paris"
	jobID     = "bench-generator"
	dialHC    = "1" // HC: 22:00-06:00 local
	dialHP    = "2"
	hcFrom    = 22
	hcTo      = 6
	pointStep = 30 * time.Minute
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
	return int(time.Date(s.Year+1, 1, 1, 0, 0, 0, 0, loc).Sub(from) / pointStep)
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
		DialHeadings:   map[string]string{dialHC: "HC", dialHP: "HP"},
		HeadingGroups:  map[string]string{"HC": "HC", "HP": "HP"},
		TimeOfUse:      []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		DefaultHeading: "HP",
		Prices: []registry.PricePeriod{
			{ValidFrom: fmt.Sprintf("%d-01-01", year-1), ByHeading: map[string]float64{"HC": 0.2068, "HP": 0.2700}},
			{ValidFrom: fmt.Sprintf("%d-08-01", year), ByHeading: map[string]float64{"HC": 0.2088, "HP": 0.2712}},
		},
		StandingCharges:   []registry.StandingChargePeriod{{ValidFrom: fmt.Sprintf("%d-01-01", year-1), Yearly: map[string]float64{"subscription": 151.20, "cta": 21.35}}},
		CarbonCoefficient: &carbon,
	}
}

// Generate loads the data set: the tariff and sites through the registry, the readings with
// column-wise PrepareBatch inserts of SitesPerBatch sites each. Batches are generated in Go
// while earlier ones are inserted, by loadInserts inserts at a time (one insert keeps one
// ClickHouse core busy), so that a large fleet (10,000 sites: 176 M points) loads at the
// server's rate rather than at the sum of both. progress, when not nil, gets the number of
// sites loaded so far.
func Generate(ctx context.Context, db *schema.DB, reg *registry.Store, s Spec, progress func(done int)) error {
	if err := reg.PutTariff(ctx, Tariff(s.Year)); err != nil {
		return fmt.Errorf("tariff: %w", err)
	}
	if err := putSites(ctx, reg, s.Sites); err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	type batch struct {
		first, last int
		curve       *CurveColumns
		idx         *IndexColumns
	}
	batches := make(chan batch)
	g.Go(func() error {
		defer close(batches)
		for first := 0; first < s.Sites; first += SitesPerBatch {
			b := batch{first: first, last: min(first+SitesPerBatch, s.Sites)}
			var err error
			if b.curve, b.idx, err = GenerateSites(b.first, b.last, s.Year); err != nil {
				return err
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	var mu sync.Mutex
	done := 0
	for range loadInserts {
		g.Go(func() error {
			for b := range batches {
				if err := b.curve.insert(ctx, db); err != nil {
					return fmt.Errorf("load curves of sites %d-%d: %w", b.first, b.last-1, err)
				}
				if err := b.idx.insert(ctx, db); err != nil {
					return fmt.Errorf("indexes of sites %d-%d: %w", b.first, b.last-1, err)
				}
				mu.Lock()
				done += b.last - b.first
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
// within a site: the rows Generate inserts, for loading the same data set into another store.
func GenerateSites(first, last, year int) (*CurveColumns, *IndexColumns, error) {
	loc, err := time.LoadLocation(Timezone)
	if err != nil {
		return nil, nil, err
	}
	var curve CurveColumns
	var idx IndexColumns
	// Columns sized up front: growing them by append copied each ~10 times over (most of the
	// generator's time).
	spec := Spec{Sites: last - first, Year: year}
	curve.grow(spec.Sites * spec.PointsPerSite())
	idx.grow(spec.Sites * spec.IndexesPerSite())
	for i := first; i < last; i++ {
		generateSite(i, year, loc, &curve, &idx)
	}
	return &curve, &idx, nil
}

// generateSite appends site i's year: 30-minute average powers (even watts, so that a point's
// energy, W × 0.5 h, is a whole number of Wh) and, at each local midnight, the cumulative index
// of each dial, equal to the start index plus the curve's energy so far in that dial's hours.
func generateSite(i, year int, loc *time.Location, curve *CurveColumns, idx *IndexColumns) {
	rng := rand.New(rand.NewPCG(uint64(i), 2024))
	site, pod := SiteID(i), podID(i)
	base := 120 + float64(i%17)*15
	heating := 600 + float64(i%7)*250
	waterHeater := i%3 == 0
	index := map[string]int64{dialHC: 5_000_000 + int64(i)*1000, dialHP: 9_000_000 + int64(i)*1500}

	from, end := time.Date(year, 1, 1, 0, 0, 0, 0, loc), time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)
	day := from
	for t := from; t.Before(end); t = t.Add(pointStep) {
		local := t.In(loc)
		if local.Hour() == 0 && local.Minute() == 0 { // local midnight: the day's indexes
			day = local
			idx.add(site, pod, t, index)
		}
		h := float64(local.Hour()) + float64(local.Minute())/60
		season := math.Max(0, math.Cos(2*math.Pi*float64(local.YearDay()-15)/365)) // 1 mid-January, 0 from spring to autumn
		w := base + heating*season*(0.6+0.4*math.Cos(2*math.Pi*(h-5)/24))
		w += 900 * math.Exp(-math.Pow(h-7.5, 2)/1.5) // morning
		w += 1400 * math.Exp(-math.Pow(h-19.5, 2)/3) // evening
		if waterHeater && (h >= 23 || h < 2) {
			w += 2200
		}
		w += rng.Float64() * 80
		watts := int64(w/2) * 2
		curve.add(site, pod, t, watts, day)
		dial := dialHP
		if local.Hour() >= hcFrom || local.Hour() < hcTo {
			dial = dialHC
		}
		index[dial] += watts / 2 // Wh over 30 minutes
	}
	idx.add(site, pod, end, index)
}

// CurveColumns are load-curve points, column by column (the columns of load_curve_points).
type CurveColumns struct {
	Tenant, Site, Pod, Job      []string
	Begin, End, Generation, Day []time.Time // Day: the local meter-reading date, as a UTC midnight
	Value                       []int64     // W
	Reliability                 []uint8
}

func (c *CurveColumns) grow(n int) {
	for _, col := range []*[]string{&c.Tenant, &c.Site, &c.Pod, &c.Job} {
		*col = slices.Grow(*col, n)
	}
	for _, col := range []*[]time.Time{&c.Begin, &c.End, &c.Generation, &c.Day} {
		*col = slices.Grow(*col, n)
	}
	c.Value = slices.Grow(c.Value, n)
	c.Reliability = slices.Grow(c.Reliability, n)
}

func (c *CurveColumns) add(site, pod string, begin time.Time, watts int64, localDay time.Time) {
	c.Tenant = append(c.Tenant, Tenant)
	c.Site = append(c.Site, site)
	c.Pod = append(c.Pod, pod)
	c.Begin = append(c.Begin, begin.UTC())
	c.End = append(c.End, begin.Add(pointStep).UTC())
	c.Generation = append(c.Generation, time.Date(localDay.Year(), localDay.Month(), localDay.Day()+1, 6, 0, 0, 0, time.UTC))
	c.Value = append(c.Value, watts)
	c.Reliability = append(c.Reliability, 0)
	c.Day = append(c.Day, time.Date(localDay.Year(), localDay.Month(), localDay.Day(), 0, 0, 0, 0, time.UTC))
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

func (c *IndexColumns) grow(n int) {
	for _, col := range []*[]string{&c.Tenant, &c.Site, &c.Pod, &c.Nature, &c.Dial, &c.Job} {
		*col = slices.Grow(*col, n)
	}
	c.TS = slices.Grow(c.TS, n)
	c.Generation = slices.Grow(c.Generation, n)
	c.IndexBeforeChange = slices.Grow(c.IndexBeforeChange, n)
	c.Value = slices.Grow(c.Value, n)
}

func (c *IndexColumns) add(site, pod string, ts time.Time, index map[string]int64) {
	for _, dial := range []string{dialHC, dialHP} {
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
	for i, col := range columns {
		if err := b.Column(i).Append(col); err != nil {
			_ = b.Abort()
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	return b.Send()
}

// settledTables are the tables the benchmarks' reads use, merged before measuring.
var settledTables = []string{tables.LoadCurvePoints, tables.ElecIndexes, tables.ElecIndexesBySite, tables.Sites, tables.Tariffs}

// Optimize merges the readings tables so that every run measures the same, settled storage
// (queries use FINAL and never depend on merges; merged parts only make them cheaper).
func Optimize(ctx context.Context, db *schema.DB) error {
	for _, t := range settledTables {
		if err := db.Conn.Exec(ctx, "OPTIMIZE TABLE "+t+" FINAL"); err != nil {
			return fmt.Errorf("optimize %s: %w", t, err)
		}
	}
	return nil
}

// Settle merges the tables of a reused data set that hold more than one part in a partition:
// a table a migration added and filled since the data set was generated (elec_indexes_by_site in
// a data set older than it), so that its measures are those of merged storage too. A settled
// data set costs one query.
func Settle(ctx context.Context, db *schema.DB) error {
	rows, err := db.Conn.Query(ctx, "SELECT DISTINCT table FROM system.parts WHERE active AND database = currentDatabase() AND has(?, table) GROUP BY table, partition HAVING count() > 1", settledTables)
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	var unmerged []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("settle: %w", err)
		}
		unmerged = append(unmerged, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	for _, t := range unmerged {
		if err := db.Conn.Exec(ctx, "OPTIMIZE TABLE "+t+" FINAL"); err != nil { // a name of settledTables
			return fmt.Errorf("optimize %s: %w", t, err)
		}
	}
	return nil
}
