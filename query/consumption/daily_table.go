package consumption

import (
	"context"
	"math"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"golang.org/x/sync/errgroup"

	"energy/schema"
	"energy/schema/metric"
	"energy/schema/registry"
	"energy/schema/tables"
)

// Which path answered a consumption request: the daily energy table, or the readings.
const (
	PathDailyTable = "daily_table"
	PathReadings   = "readings"
)

var answersByPath = metric.CounterVec("energy_consumption_answers_total",
	"Consumption answers computed (cache misses), by the data they were computed from: daily_table (the daily energy table) or readings.",
	"path", PathDailyTable, PathReadings)

// AnswersComputedFrom is how many answers this process has computed from path (PathDailyTable
// or PathReadings) so far: what energy_consumption_answers_total{path} shows.
func AnswersComputedFrom(path string) float64 {
	var m dto.Metric
	if err := answersByPath.WithLabelValues(path).Write(&m); err != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}

// dayRow is what the daily energy table (schema/migrations/0027_daily_energy.sql) holds for one
// local day of a site's electricity, as the daily path reads it: the conditions on its scalar
// columns and the sets of its error flags and index natures worked out as readDayRows reads it.
type dayRow struct {
	day        time.Time // the local date (a Date column: its calendar date counts)
	dials      []string
	dialWh     []float64
	plain      uint8  // 1 when COMPLETE, REAL, of quality 100 with an energy, in the zone asked for
	flagBits   uint64 // bit 1 NEGATIVE_CONSUMPTION, bit 2 METER_CHANGE, bit 0 any other error flag
	natureBits uint64 // bit i+1 natureFamilies[i], bit 0 any other index nature
	aggregated uint8
	start      time.Time // local midnights, from date in the site's zone
	end        time.Time
	// worked out by exact
	negative, meterStart bool
	natures              natureSet
	priced               *localDay // its prices; nil without cost
}

// dayRowFlags are the error flags a day can carry into a step, in flagBits' order.
var dayRowFlags = []string{FlagNegativeConsumption, FlagMeterChange}

// dayRowNatures are natureFamilies' natures, in natureBits' order.
var dayRowNatures = func() []string {
	out := make([]string, len(natureFamilies))
	for i, f := range natureFamilies {
		out[i] = f.nature
	}
	return out
}()

// answersFromDailyTable tells whether the plan's answer may come from the daily table: steps of
// whole local days (DAYS, MONTHS, YEARS from a local midnight to a local midnight) of
// electricity computed from the index readings with the rules the table's rows were computed
// with (every index category, SURROUNDING_ESTIMATED, no load curve). The options that only
// shape the items (cost, carbon, ratios, global item) apply to both paths alike.
func (p *plan) answersFromDailyTable() bool {
	switch p.req.StepUnit {
	case UnitDays, UnitMonths, UnitYears:
	default:
		return false
	}
	return p.fl.name == FluidElec && len(p.req.IndexCategories) == 0 && p.strategy == StrategySurroundingEstimated &&
		p.useIndexes && !p.loadCurveSteps && !p.completion && isLocalMidnight(p.start, p.loc) && isLocalMidnight(p.end, p.loc)
}

func isLocalMidnight(t time.Time, loc *time.Location) bool {
	y, m, d := t.In(loc).Date()
	return t.Equal(WallClock(y, m, d, 0, 0, 0, 0, loc))
}

// tableAnswer tells whether the daily table answered a request, and if not whether that holds
// for the site whatever the period (tableMisses).
type tableAnswer int

const (
	tableAnswers tableAnswer = iota
	tableCannotAnswer
	tableNeverAnswersSite
)

// fromDailyTable answers the plan from the daily energy table when its rows are the exact
// answer; any other answer than tableAnswers (and no error) sends the request to the readings.
//
// A step of whole days made of the days' own answers is the step's answer only when no reading
// interval crosses a midnight inside it (a multi-day step does not interpolate there, a day's
// own answer does) and when the sums add up exactly. Every day of the window must therefore
// have a row, in the site's current zone, that is COMPLETE, REAL, of quality 100 and not
// aggregated: the day is then exactly one real reading interval of one point of delivery, from
// midnight to midnight, whose energy by dial is a whole number of Wh. Anything else (a day
// without row, a gap, an estimated or interpolated day, several readings a day) goes to the
// readings. The step's sums are then formed in the readings path's order (dial by dial, day by
// day within a dial, as its series are walked), each day priced at that day's prices through
// the same pricing, so that the answer is the same to the last bit.
func (c *Engine) fromDailyTable(ctx context.Context, site registry.Site, p *plan) (*ConsumptionResult, tableAnswer, error) {
	last := p.windowEnd
	if p.fetchEnd.After(last) {
		last = p.fetchEnd
	}
	days, ok := localDays(p.start, last, p.loc)
	if !ok {
		return nil, tableCannotAnswer, nil
	}
	var tariff *registry.Tariff
	var rows []dayRow
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { tariff, err = c.tariff(gctx, site, p); return err })
	g.Go(func() (err error) {
		rows, err = readDayRows(gctx, c.db, site, FluidElec, p.loc.String(), days[0].Format(time.DateOnly), last.In(p.loc).Format(time.DateOnly), len(days)-1)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, tableCannotAnswer, err
	}
	if len(rows) == 0 {
		return nil, tableNeverAnswersSite, nil
	}
	if len(rows) != len(days)-1 {
		return nil, tableCannotAnswer, nil
	}
	for i := range rows {
		r := &rows[i]
		if r.aggregated != 0 { // several reading intervals a day: so are the site's other days
			return nil, tableNeverAnswersSite, nil
		}
		if !sameDate(r.day, days[i]) || !r.exact() {
			return nil, tableCannotAnswer, nil
		}
		r.start, r.end = days[i], days[i+1]
	}

	b := p.itemBuilder(tariff)
	heading := dialHeading(tariff)
	for i := range rows {
		r := &rows[i]
		if r.meterStart { // a meter change in the day: the day's start stands for it
			b.meterChanges = append(b.meterChanges, r.start)
		}
		if b.pricing != nil {
			r.priced = b.pricing.knownDay(r.start, r.end)
		}
	}
	res := p.result()
	at := 0 // the first row of the step
	for k, st := range p.steps {
		n := at
		for n < len(rows) && rows[n].start.Before(st.End) {
			n++
		}
		if n == at || !rows[n-1].end.Equal(st.End) {
			return nil, tableCannotAnswer, nil // steps are made of whole days by construction: never trust otherwise
		}
		res.Consumptions[k] = b.item(st, daySums(b, rows[at:n], heading, st.End.Sub(st.Start)), true)
		at = n
	}
	res.ComputationPeriod = computationPeriod(p.start, p.windowEnd, p.start, p.end, p.windowEnd, p.truncated, p.loc)
	if p.req.WithGlobalConsumption {
		whole := Step{p.start, p.end}
		global := b.item(whole, daySums(b, rows, heading, p.end.Sub(p.start)), true)
		res.GlobalConsumption = &global
	}
	return res, tableAnswers, nil
}

// exact tells whether the row is one real reading interval from midnight to midnight (see
// fromDailyTable) in the zone readDayRows was given, with whole Wh by dial and flags the days can
// carry into a step; it notes its flags and natures.
func (r *dayRow) exact() bool {
	if r.plain != 1 || r.aggregated != 0 || len(r.dials) == 0 || len(r.dials) != len(r.dialWh) ||
		r.flagBits&1 != 0 || r.natureBits&1 != 0 {
		return false
	}
	for _, wh := range r.dialWh {
		if wh != math.Trunc(wh) || math.IsInf(wh, 0) {
			return false
		}
	}
	r.negative = r.flagBits&(1<<1) != 0
	r.meterStart = r.flagBits&(1<<2) != 0
	r.natures = natureSet(r.natureBits >> 1)
	return true
}

// daySums are the sums of a step made of the rows' days, in the order the readings path adds
// its pieces: series (dials, in order) one after the other, each over its days in time order.
// Each day of a dial is one reading interval inside one local day: one piece.
func daySums(b *itemBuilder, rows []dayRow, heading func(dial string) string, duration time.Duration) stepSums {
	s := stepSums{byHeading: b.byHeading[:0], costs: b.costs[:0], covered: duration, real: duration,
		aggregated: len(rows) > 1} // one reading interval a day: distinct days are distinct intervals
	var dials []string
	for _, r := range rows {
		s.natures |= r.natures
		s.negative = s.negative || r.negative
		for _, d := range r.dials {
			if !slices.Contains(dials, d) {
				dials = append(dials, d)
			}
		}
	}
	slices.Sort(dials) // the readings are sorted by point of delivery, dial, then time
	for _, d := range dials {
		h := heading(d)
		for i := range rows {
			r := &rows[i]
			j := slices.Index(r.dials, d)
			if j < 0 {
				continue
			}
			s.byHeading = addAmount(s.byHeading, h, r.dialWh[j])
			if r.priced != nil { // the day is one piece inside one local day: priced at that day's price
				s.costs = addDayCost(s.costs, r.priced, h, r.dialWh[j])
			}
		}
	}
	b.byHeading, b.costs = s.byHeading, s.costs // scratch kept for the next step
	return s
}

// sameDate tells whether day (read from a Date column) is the date of midnight, in its location.
func sameDate(day, midnight time.Time) bool {
	y, m, d := midnight.Date()
	dy, dm, dd := day.Date()
	return y == dy && m == dm && d == dd
}

// localDays are the local midnights from start (a local midnight) to end (one too), both
// included; ok false when end is not one of them.
func localDays(start, end time.Time, loc *time.Location) ([]time.Time, bool) {
	days := []time.Time{start}
	for d := start; d.Before(end); {
		y, m, dd := d.In(loc).Date()
		d = WallClock(y, m, dd+1, 0, 0, 0, 0, loc)
		if !d.After(days[len(days)-1]) {
			return nil, false // a zone that misbehaves: never loop
		}
		days = append(days, d)
	}
	return days, days[len(days)-1].Equal(end)
}

// readDayRows reads the latest row of each local day in [from, to) (yyyy-MM-dd) of the site's
// fluid from the daily energy table's per-site copy (daily_energy_by_site, one part to open
// rather than a part per month), in one query, by day; zone is the site's; n is the number of
// days expected.
//
// The latest row is kept here rather than with FINAL: a day's rows are few (one per write not
// yet merged away), and FINAL makes the server merge every column of the range. The
// conditions are a PREWHERE, key columns included (ClickHouse moves only non-key conditions
// there itself): the other columns, arrays mostly, are then read only from the granules that
// hold the site's days, not from the neighbours' that the sparse index lets in. The row's
// conditions, flags and natures are worked out here (dayRowBits), not by the query: on 18.16
// the expressions cost the server more per query (about 1.5 ms for a site-year, measured on
// bench-pg's data set) than scanning the columns costs the driver.
func readDayRows(ctx context.Context, db *schema.DB, site registry.Site, fluid, zone, from, to string, n int) ([]dayRow, error) {
	rows, err := db.Conn.Query(ctx, "SELECT day, dial_names, dial_wh, time_zone, status, nature, quality, energy_wh,"+
		" error_flags, index_natures, aggregated FROM "+tables.DailyEnergyBySite+
		" PREWHERE tenant_id = ? AND site_id = ? AND fluid = ? AND day >= toDate(?) AND day < toDate(?) ORDER BY day, version DESC",
		site.TenantID, site.SiteID, fluid, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]dayRow, 0, n)
	var (
		d                    dayRow
		rowZone, status, nat string
		quality              float64
		energy               *float64
		flags, indexNatures  []string
	)
	for rows.Next() {
		if err := rows.Scan(&d.day, &d.dials, &d.dialWh, &rowZone, &status, &nat, &quality, &energy, &flags, &indexNatures, &d.aggregated); err != nil {
			return nil, err
		}
		if len(out) > 0 && out[len(out)-1].day.Equal(d.day) {
			continue // an older version of the day, not merged away yet
		}
		if rowZone == zone && status == StatusComplete && nat == NatureReal && quality == 100 && energy != nil {
			d.plain = 1
		}
		d.flagBits, d.natureBits = dayRowBits(flags, dayRowFlags), dayRowBits(indexNatures, dayRowNatures)
		out = append(out, d)
		d = dayRow{}
	}
	return out, rows.Err()
}

// dayRowBits is the set of names as bits: bit i+1 for known[i], bit 0 for a name not known.
func dayRowBits(names, known []string) uint64 {
	var bits uint64
	for _, name := range names {
		i := slices.Index(known, name)
		bits |= 1 << (i + 1) // −1, not known: bit 0
	}
	return bits
}
