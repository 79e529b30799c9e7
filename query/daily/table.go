// Package daily maintains the daily energy table (schema/migrations/0027_daily_energy.sql):
// one row per tenant, site, fluid and local day holding the consumption endpoint's answer for
// that day, computed by the consumption engine (never by rules of its own in SQL).
package daily

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/sitedata"
	"energy/schema/tables"
)

// Table writes the daily energy table.
type Table struct {
	db       *schema.DB
	reg      *registry.Store
	engine   *consumption.Engine
	versions schema.RowVersions
	now      func() time.Time
}

// New returns the writer of the table; engine answers the days (the service's one engine).
func New(db *schema.DB, reg *registry.Store, engine *consumption.Engine) *Table {
	return &Table{db: db, reg: reg, engine: engine, now: time.Now}
}

const columns = "tenant_id, site_id, fluid, day, time_zone, start_ts, end_ts, energy_wh, heading_names, heading_wh, " +
	"dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures, aggregated, computed_ts, version"

// Written writes the days an archive job's readings can change (the ingest hook, run before
// the job is DONE): for each site and fluid, every local day from the nearest reading before
// the job's first reading to the nearest one after its last, whose interpolation moves. The
// engine answers all the job's sites of a fluid from one read (consumption.Engine.ChangedDays),
// and their rows go in one insert.
func (t *Table) Written(ctx context.Context, w sitedata.Written) error {
	byFluid := map[string][]consumption.SiteChange{}
	for _, span := range w.Spans {
		site, err := t.reg.Directory.Site(ctx, w.TenantID, span.SiteID)
		if errors.Is(err, registry.ErrNotFound) {
			continue // readings of a site removed since: nothing answers for it
		}
		if err != nil {
			return err
		}
		byFluid[span.Fluid] = append(byFluid[span.Fluid], consumption.SiteChange{Site: site, First: span.First, Last: span.Last})
	}
	for _, fluid := range slices.Sorted(maps.Keys(byFluid)) {
		changes := byFluid[fluid]
		// The versions are taken before the engine reads: a later rewrite of the same day, which
		// reads at least the readings this one read, always wins.
		version := t.versions.Reserve(1)
		answers, err := t.engine.ChangedDays(ctx, w.TenantID, fluid, changes)
		if err != nil {
			return fmt.Errorf("daily energy of job %s: %w", w.JobID, err)
		}
		rows := make([]siteRows, len(answers))
		for i, a := range answers {
			rows[i] = siteRows{a, version}
		}
		if err := t.insert(ctx, fluid, rows); err != nil {
			return fmt.Errorf("daily energy of job %s: %w", w.JobID, err)
		}
	}
	return nil
}

// siteRows are a site's days to write, with the version taken before they were computed.
type siteRows struct {
	consumption.SiteDays
	version uint64
}

// insert writes the days of the sites in one INSERT.
func (t *Table) insert(ctx context.Context, fluid string, sites []siteRows) error {
	b, err := t.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.DailyEnergy+" ("+columns+")")
	if err != nil {
		return err
	}
	defer func() { _ = b.Abort() }()
	toWh := func(v float64) float64 { return v }
	if fluid == registry.HeatingGas { // the answer is in kWh, to 0.000001
		toWh = func(v float64) float64 { return math.Round(v*1e6) / 1e3 }
	}
	computed := t.now().UTC().Truncate(time.Second)
	rows := 0
	for _, sd := range sites {
		site := sd.Site
		zone := site.Location().String()
		for _, d := range sd.Days {
			it := d.Item
			var energy, volume *float64
			if it.EnergyMeter.Total != nil {
				wh := toWh(*it.EnergyMeter.Total)
				energy = &wh
			}
			unit := ""
			if it.Volume != nil {
				volume, unit = it.Volume.Total, it.Volume.Unit
			}
			headings, headingWh := sorted(it.EnergyMeter.ByTariffHeading, toWh)
			dials, dialWh := sorted(d.ByDial, toWh)
			end := time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day()+1, 0, 0, 0, 0, d.Day.Location())
			// The Date column takes the local calendar date: a time at UTC midnight of that date.
			date := time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), 0, 0, 0, 0, time.UTC)
			aggregated := uint8(0)
			if it.Aggregated {
				aggregated = 1
			}
			if err := b.Append(site.TenantID, site.SiteID, fluid, date, zone, d.Day.UTC(), end.UTC(),
				energy, headings, headingWh, dials, dialWh, volume, unit, it.Quality, it.Status, it.Nature,
				nonNil(it.ErrorFlags), nonNil(it.IndexNatures), aggregated, computed, sd.version); err != nil {
				return err
			}
			rows++
		}
	}
	if rows == 0 {
		return nil
	}
	return b.Send()
}

// sorted lays a map out as parallel arrays, keys in order, values through conv.
func sorted(m map[string]float64, conv func(float64) float64) ([]string, []float64) {
	keys := slices.Sorted(maps.Keys(m))
	values := make([]float64, len(keys))
	for i, k := range keys {
		values[i] = conv(m[k])
	}
	return keys, values
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
