package consumption

import (
	"context"
	"fmt"
	"sort"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// Fluids whose index readings the engine resolves.
const (
	FluidElec = registry.HeatingElec
	FluidGas  = registry.HeatingGas
)

// gasCandidateReadingsSQL is candidateReadingsSQL on the gas indexes (no dials), with each
// record's index unit and kWh per index unit: 1 when the index is in kWh, else its conversion
// factor to kWh, NaN when it has neither (such a reading closes an interval of unknown energy).
//
// Gas meters have no dials: the dial is an empty string made a full column (materialize), as it
// was when the bracketing readings came from a second SELECT joined by UNION ALL, which 18.16
// refused on a cluster with a constant column; one read now fetches both.
func gasCandidateReadingsSQL(table string) string {
	return "SELECT " +
		tables.List(tables.PodID, "materialize('') AS "+tables.Dial, tables.TS, tables.IndexBeforeChange, natureCodeSQL, tables.GenerationTS, tables.Value,
			"if("+tables.Unit+" = 'kWh', 1., if(has("+tables.ConversionUnits+", 'kWh'), "+
				tables.ConversionFactors+"[indexOf("+tables.ConversionUnits+", 'kWh')], nan)) AS factor", tables.Unit) +
		" FROM " + table + siteReadingsWhere
}

// fluid is what differs between the fluids the one engine answers: where the readings are,
// which tariff prices them, and how the answer states energy.
type fluid struct {
	name        string
	readingsSQL func(table string) string // candidate readings in [?, ?]: candidateReadingsSQL or gasCandidateReadingsSQL
	table       string                    // the sharded table per-site reads read: the readings laid out by site
	loadCurve   bool                      // the fluid has load curves
	volume      bool                      // items carry the volume in the index unit
	energyUnit  string                    // units.energyMeter
	perWh       float64                   // output energy unit per Wh
}

// fluids describes each fluid. Electricity indexes are Wh; gas indexes are volumes (or kWh)
// whose energy is the later reading's kWh factor × the index difference, stated in kWh.
var fluids = map[string]*fluid{
	FluidElec: {name: FluidElec, readingsSQL: candidateReadingsSQL, table: tables.ElecIndexesBySite, loadCurve: true, energyUnit: UnitEnergy, perWh: 1},
	FluidGas:  {name: FluidGas, readingsSQL: gasCandidateReadingsSQL, table: tables.GasIndexesBySite, volume: true, energyUnit: UnitEnergyKWh, perWh: 0.001},
}

// readingsOf is the fluid's candidate readings SQL on the table where site finds them (the
// local table of the site's shard on a cluster).
func (f *fluid) readingsOf(site schema.SiteReader) string {
	return f.readingsSQL(site.Table(f.table))
}

// fluidOf returns the fluid of a request ("" is electricity).
func fluidOf(name string) (*fluid, error) {
	return fluidIn(fluids, name)
}

// fluidIn returns the fluid of a request among those of the map.
func fluidIn(fluids map[string]*fluid, name string) (*fluid, error) {
	if name == "" {
		name = FluidElec
	}
	f, ok := fluids[name]
	if !ok {
		return nil, fmt.Errorf("consumption: unknown fluid %q", name)
	}
	return f, nil
}

// volumeUnit is the index unit of the latest reading (the meter in place now), empty without
// readings.
func volumeUnit(rs []reading) string {
	var unit string
	var last time.Time
	for _, r := range rs {
		if unit == "" || !r.ts.Before(last) {
			unit, last = r.unit, r.ts
		}
	}
	return unit
}

// keepVolumeIn leaves the volume of intervals read in another unit out (their energy stays).
func (s *indexSeries) keepVolumeIn(unit string) {
	for i := range s.intervals {
		if s.intervals[i].unit != unit {
			s.intervals[i].volume = 0
		}
	}
}

// ReadingInterval is the energy of a site's fluid between two consecutive resolved readings,
// every point of delivery and dial read at those two instants summed.
type ReadingInterval struct {
	From, To time.Time
	KWh      float64
}

// ReadingIntervals returns the intervals between the consecutive resolved readings of the
// site's fluid (FluidElec or FluidGas) that lie in [from, to], oldest first, with the index
// rules of the consumption endpoint (natures, _INVALID, latest generationTs, meter change,
// MKT_ESTIMATION readings only where no real one surrounds them). Intervals whose energy is
// unknown are left out: a decreasing index without meter change, a gas reading without kWh
// factor. Electricity energy is Wh ÷ 1,000; gas energy is the index difference × the later
// reading's factor.
func ReadingIntervals(ctx context.Context, db *schema.DB, site registry.Site, fluid string, from, to time.Time) ([]ReadingInterval, error) {
	fl, err := fluidOf(fluid)
	if err != nil {
		return nil, err
	}
	reader := db.ReadSite(site.TenantID, site.SiteID)
	recs, err := queryRecords(ctx, reader, fl.readingsOf(reader), site.TenantID, site.SiteID, allowedNatures(nil), from.UTC(), to.UTC())
	if err != nil {
		return nil, err
	}
	readings := resolveRecords(recs)
	sortReadings(readings)
	series := buildIndexSeries(readings, StrategySurroundingEstimated, from, to)
	type span struct{ from, to int64 }
	sums := map[span]float64{}
	unknown := map[span]bool{}
	for _, iv := range series.intervals {
		k := span{iv.start.Unix(), iv.end.Unix()}
		if iv.negative {
			unknown[k] = true
			continue
		}
		sums[k] += iv.wh / 1000
	}
	for _, u := range series.unconverted {
		unknown[span{u.a.Unix(), u.b.Unix()}] = true
	}
	out := make([]ReadingInterval, 0, len(sums))
	for k, kwh := range sums {
		if !unknown[k] {
			out = append(out, ReadingInterval{From: time.Unix(k.from, 0).UTC(), To: time.Unix(k.to, 0).UTC(), KWh: kwh})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From.Before(out[j].From) })
	return out, nil
}

// DayEnergy is the energy of a site's fluid on one local day.
type DayEnergy struct {
	Day     time.Time // local midnight
	KWh     float64
	Covered float64 // share of the day that reading intervals cover, 0..1
}

// DailyEnergy returns the energy of the site's fluid on each local day in [from, to) that a
// reading interval touches: each interval's energy spread evenly over its duration (the index
// interpolated at local midnights, as the consumption endpoint prices days).
func DailyEnergy(ctx context.Context, db *schema.DB, site registry.Site, fluid string, from, to time.Time) ([]DayEnergy, error) {
	loc := site.Location()
	ivs, err := ReadingIntervals(ctx, db, site, fluid, from.Add(-readingWindow), to.Add(readingWindow))
	if err != nil {
		return nil, err
	}
	byDay := map[int64]*DayEnergy{}
	var days []int64
	for _, iv := range ivs {
		length := iv.To.Sub(iv.From)
		lo, hi := maxTime(iv.From, from), minTime(iv.To, to)
		for a := lo; a.Before(hi); {
			y, m, d := a.In(loc).Date()
			day := time.Date(y, m, d, 0, 0, 0, 0, loc)
			next := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
			b := minTime(next, hi)
			de := byDay[day.Unix()]
			if de == nil {
				de = &DayEnergy{Day: day}
				byDay[day.Unix()] = de
				days = append(days, day.Unix())
			}
			de.KWh += iv.KWh * float64(b.Sub(a)) / float64(length)
			de.Covered += float64(b.Sub(a)) / float64(next.Sub(day))
			a = b
		}
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	out := make([]DayEnergy, len(days))
	for i, d := range days {
		out[i] = *byDay[d]
	}
	return out, nil
}
