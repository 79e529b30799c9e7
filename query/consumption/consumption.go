// Package consumption is the consumption engine of electricity and gas: steps, index
// resolution, load curve and time-of-use, cost, carbon, and the JSON encoder of its answers.
package consumption

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"energy/schema"
	"energy/schema/registry"
)

// Engine is the consumption engine of both fluids (GET .../fluids/elec/consumptions and
// .../fluids/gas/consumptions). Per request it reads the site's tariff of the fluid, the
// candidate index readings and, when needed, the load curve, concurrently; everything else
// (resolution, steps, interpolation, strategies, cost) is done in Go.
//
// Rules (apidocs/README.md, "Consumption", and the endpoint's OpenAPI description), with the
// choices made where those are silent:
//
//   - Readings: per (pod, ts, indexBeforeChange) the winning record is chosen in SQL (resolve.go):
//     category filter, latest generationTs per nature family (an _INVALID twin of the same
//     generation wins the tie), an _INVALID winner removes the family there, then priority
//     distributor > DTN_CUSTOMER_ACK > MKT_CUSTOMER > MKT_ESTIMATION. A site's points of
//     delivery and dials are separate series whose energies add up.
//   - A step's energy is the part of each reading interval inside it, prorated by time (the
//     linear interpolation of the index at the boundary; an interpolated index is estimated).
//     NO_ESTIMATED: no interpolation and no MKT_ESTIMATION reading, a step counts only the
//     intervals between readings it contains (boundaries included). SURROUNDING_ESTIMATED:
//     interpolation only at the requested period's start and end, MKT_ESTIMATION readings only
//     outside the period or before its first / after its last real reading. ALL_ESTIMATED: both
//     anywhere. The global item is one step over the whole period under the same rules.
//   - Load curve: a point gives W × hours, prorated where it straddles a boundary; it answers
//     HOURS/MINUTES steps when LOAD_CURVE is allowed and the period has points (else indexes
//     answer), every step when no index source is allowed, and with loadCurveCompletion the
//     parts before the first and after the last real index data, where it has points. Its
//     energy goes to headings by the tariff's timeOfUse (default heading otherwise; BASE
//     without tariff). A point of reliability 1 covers but is not real data.
//   - Index sources: SMART_METER, LEGACY_INDEX, INTRADAY and SENSOR all allow index readings
//     (indexCategories filters their natures); LOAD_CURVE allows the load curve.
//   - Headings: a dial's heading is the tariff's dialHeadings entry, else its default heading;
//     without tariff, the dial number itself. With a tariff and data, byTariffHeading lists
//     every heading of the tariff (0 when unused). Ratios: from unrounded energies; a heading
//     without group is its own group; empty maps when the energy is null or 0.
//   - Items: quality = 100 × real (not estimated, reliability 0) covered time ÷ step duration;
//     status COMPLETE when the step is covered (estimated data covers), PARTIAL, NO_DATA;
//     nature ESTIMATED when any estimated or unreliable data went in, REAL otherwise (NO_DATA
//     included); aggregated when more than one reading interval or load-curve point went in;
//     indexNatures the natures of the readings bounding the intervals used.
//   - Cost: each part of a piece of energy lying in one local day is priced at that day's price
//     (energy spread evenly over a reading interval, i.e. the index interpolated at local
//     midnights); the standing charge of every local day of the step is yearly ÷ days of its
//     year, times the covered share of the day, whatever the data. Days before the first
//     validFrom have no price and are not costed. No cost member for a NO_DATA step.
//   - Gas: the same rules on the cyclic gas indexes (no dials, no load curve) with the site's gas
//     tariff (gasTariffId, heading BASE). An interval's energy is the index difference × the
//     later reading's kWh factor (1 for an index in kWh); an interval whose later reading has
//     neither has unknown energy: it covers nothing and flags MISSING_CONVERSION_FACTOR on the
//     steps it touches. Energy is stated in kWh; volume sums the index differences in the unit
//     of the latest reading. Carbon default: the gas one.
//   - Rounding only at the output: Wh to 0.001 (kWh to 0.000001), EUR to 0.0001, kgCO2e to
//     0.000001, index volumes to 0.001, quality to 0.01.
//   - computationPeriod: from the first to the last instant covered by data, ending at the end
//     of the 1,200th step when the window truncates; absent when that is the requested period,
//     and when nothing at all was computed (unless truncated).
type Engine struct {
	db            *schema.DB
	reg           *registry.Store
	defaultCarbon float64 // kgCO2e/kWh of electricity when the tariff names none
	gasCarbon     float64 // kgCO2e/kWh of gas when the gas tariff names none
	now           func() time.Time
	fluids        map[string]*fluid // the fluids by name, where their readings are read (tests read other tables)
	dailyTable    bool              // Compute may answer from the daily energy table (fromDailyTable)
	misses        tableMisses       // sites the daily table cannot answer, until their data changes
}

// NewEngine returns the engine; defaultCarbon is the electricity coefficient (kgCO2e/kWh) of
// sites whose tariff has no carbonCoefficient (DefaultCarbonCoefficient is the service's
// default). Gas gets DefaultGasCarbonCoefficient until WithGasCarbon says otherwise.
func NewEngine(db *schema.DB, reg *registry.Store, defaultCarbon float64) *Engine {
	return &Engine{db: db, reg: reg, defaultCarbon: defaultCarbon, gasCarbon: DefaultGasCarbonCoefficient,
		now: time.Now, fluids: fluids, dailyTable: true}
}

// WithoutDailyTable makes Compute answer every request from the readings, and returns the
// engine: what the daily table's rows are checked against.
func (c *Engine) WithoutDailyTable() *Engine {
	c.dailyTable = false
	return c
}

// WithGasCarbon sets the gas coefficient (kgCO2e/kWh) of sites whose gas tariff has no
// carbonCoefficient, and returns the engine. Call it before the engine answers.
func (c *Engine) WithGasCarbon(coefficient float64) *Engine {
	c.gasCarbon = coefficient
	return c
}

// indexSources are the data sources that allow index readings; LOAD_CURVE allows the load curve.
var indexSources = map[string]bool{"SMART_METER": true, "LEGACY_INDEX": true, "INTRADAY": true, "SENSOR": true}

// evaluation is one request's data and rules, shared by the steps and the global item.
type evaluation struct {
	start, end     time.Time // the requested period
	series         indexSeries
	points         []loadCurvePoint
	fromLoadCurve  bool // steps are computed from the load curve
	completion     bool // loadCurveCompletion
	tou            *timeOfUse
	canInterpolate interpolationRule
	heading        func(dial string) string
}

// Compute returns the consumption of the site's fluid over req.
// Whole local days with the table's own rules are answered from the daily energy table when
// its rows are the exact answer (fromDailyTable), from the readings otherwise.
func (c *Engine) Compute(ctx context.Context, site registry.Site, req Request) (*ConsumptionResult, error) {
	p, err := c.plan(site, req)
	if err != nil {
		return nil, err
	}
	if c.dailyTable && p.answersFromDailyTable() {
		versions := versionsOf(c.reg.Versions, site)
		if !c.misses.holds(site, versions, c.now()) {
			res, answer, err := c.fromDailyTable(ctx, site, p)
			if err != nil {
				return nil, err
			}
			if answer == tableAnswers {
				answersByPath.WithLabelValues(PathDailyTable).Inc()
				return res, nil
			}
			if answer == tableNeverAnswersSite {
				c.misses.remember(site, versions, c.now())
			}
		}
	}
	answersByPath.WithLabelValues(PathReadings).Inc()
	d, err := c.fetch(ctx, site, p, p.start, p.fetchEnd)
	if err != nil {
		return nil, err
	}
	return p.evaluate(d), nil
}

// ComputeAll returns the consumption of each request, as Compute would, reading the data once
// when it can: electricity requests of the same index categories and strategy that need no
// load curve (single steps, DAYS to YEARS) share one read of the tariff and of the readings over the span
// of all their periods. Others are computed one by one.
func (c *Engine) ComputeAll(ctx context.Context, site registry.Site, reqs []Request) ([]*ConsumptionResult, error) {
	plans := make([]*plan, len(reqs))
	for i, req := range reqs {
		p, err := c.plan(site, req)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	out := make([]*ConsumptionResult, len(reqs))
	if !shareOneRead(plans) {
		for i, p := range plans {
			d, err := c.fetch(ctx, site, p, p.start, p.fetchEnd)
			if err != nil {
				return nil, err
			}
			out[i] = p.evaluate(d)
		}
		return out, nil
	}
	from, to := plans[0].start, plans[0].fetchEnd
	for _, p := range plans[1:] {
		if p.start.Before(from) {
			from = p.start
		}
		if p.fetchEnd.After(to) {
			to = p.fetchEnd
		}
	}
	// Each evaluation picks the readings around its own period: the readings of the other
	// periods lie outside it, as the margins of a single read do.
	d, err := c.fetch(ctx, site, plans[0], from, to)
	if err != nil {
		return nil, err
	}
	for i, p := range plans {
		out[i] = p.evaluate(d)
	}
	return out, nil
}

// shareOneRead tells whether the plans can be answered from one read of readings: the same
// fluid, categories and strategy, no load curve, and no volume (whose unit is the latest
// reading's, which a wider read would move).
func shareOneRead(plans []*plan) bool {
	return !plans[0].fl.volume && shareOneReadButVolume(plans)
}

// shareOneReadButVolume is shareOneRead's conditions but the volume's.
func shareOneReadButVolume(plans []*plan) bool {
	first := plans[0]
	for _, p := range plans {
		if p.loadCurveSteps || p.completion || p.fl != first.fl || p.strategy != first.strategy ||
			!slices.Equal(p.req.IndexCategories, first.req.IndexCategories) {
			return false
		}
	}
	return true
}

// plan is what a request asks of the engine once checked: its steps and which data it reads.
type plan struct {
	req                        Request
	fl                         *fluid
	loc                        *time.Location
	start, end                 time.Time // the requested period in the site's zone
	steps                      []Step
	truncated                  bool
	windowEnd, fetchEnd        time.Time
	strategy                   string
	useIndexes, loadCurveSteps bool
	completion                 bool
	tariffID                   string
	coefficient                float64 // default carbon of the fluid
}

// fetched is the data a plan is evaluated on.
type fetched struct {
	tariff   *registry.Tariff
	readings []reading
	points   []loadCurvePoint
	colours  *registry.ColourDays // the colour days of the tariff's day-colour calendar; nil: none
}

func (c *Engine) plan(site registry.Site, req Request) (*plan, error) {
	fl, err := fluidIn(c.fluids, req.Fluid)
	if err != nil {
		return nil, err
	}
	loc := site.Location()
	start, end := req.Start.In(loc), req.End.In(loc)
	if !end.After(start) {
		return nil, fmt.Errorf("consumption: end %s is not after start %s", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	p := &plan{req: req, fl: fl, loc: loc, start: start, end: end}
	p.steps, p.truncated = Steps(start, end, loc, req.StepUnit, req.StepValue, MaxSteps)
	p.windowEnd = p.steps[len(p.steps)-1].End
	p.fetchEnd = p.windowEnd
	if req.WithGlobalConsumption {
		p.fetchEnd = end
	}
	p.strategy = req.IndexStrategy
	if p.strategy == "" {
		p.strategy = StrategySurroundingEstimated
	}
	useIndexes, useLoadCurve := len(req.DataSources) == 0, len(req.DataSources) == 0
	for _, s := range req.DataSources {
		useIndexes = useIndexes || indexSources[s]
		useLoadCurve = useLoadCurve || s == SourceLoadCurve
	}
	if !fl.loadCurve {
		useIndexes, useLoadCurve = true, false
	}
	p.useIndexes = useIndexes
	p.completion = req.LoadCurveCompletion && fl.loadCurve
	p.tariffID, p.coefficient = site.TariffID, c.defaultCarbon
	if fl.name == FluidGas {
		p.tariffID, p.coefficient = site.GasTariffID, c.gasCarbon
	}
	fineSteps := req.StepUnit == UnitHours || req.StepUnit == UnitMinutes
	p.loadCurveSteps = useLoadCurve && (fineSteps || !useIndexes)
	return p, nil
}

// fetch reads, concurrently, the tariff of the plan's fluid and the readings or load curve it
// needs over [from, to].
func (c *Engine) fetch(ctx context.Context, site registry.Site, p *plan, from, to time.Time) (*fetched, error) {
	d := &fetched{}
	g, gctx := errgroup.WithContext(ctx)
	fetchTariff := func(ctx context.Context) (err error) {
		if d.tariff, err = c.tariff(ctx, site, p); err != nil || d.tariff == nil {
			return err
		}
		if t := d.tariff; t.DayColourCalendarID != "" && (p.loadCurveSteps || p.completion) { // colours split the load curve only
			d.colours, err = c.colourDays(ctx, site, t.DayColourCalendarID, from, to, p.loc)
		}
		return err
	}
	if p.tariffID != "" {
		g.Go(func() error { return fetchTariff(gctx) })
	}
	fetchReadings := func(ctx context.Context) (err error) {
		bracket := p.strategy != StrategyNoEstimated
		d.readings, err = resolveReadings(ctx, c.db, p.fl, site.TenantID, site.SiteID, allowedNatures(p.req.IndexCategories), from, to, bracket, c.now())
		return err
	}
	switch {
	case p.loadCurveSteps: // indexes only answer a site without load curve in the period
		g.Go(func() (err error) {
			if d.points, err = resolveLoadCurve(gctx, c.db, site.TenantID, site.SiteID, from, to); err != nil || len(d.points) > 0 || !p.useIndexes {
				return err
			}
			return fetchReadings(gctx)
		})
	case p.useIndexes:
		g.Go(func() error { return fetchReadings(gctx) })
		if p.completion {
			g.Go(func() (err error) {
				d.points, err = resolveLoadCurve(gctx, c.db, site.TenantID, site.SiteID, from, to)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return d, nil
}

// tariff reads the site's tariff of the plan's fluid; nil when it has none or it was removed
// (no cost).
func (c *Engine) tariff(ctx context.Context, site registry.Site, p *plan) (*registry.Tariff, error) {
	if p.tariffID == "" {
		return nil, nil
	}
	t, err := c.reg.Directory.Tariff(ctx, site.TenantID, p.tariffID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// evaluate computes the plan's answer from the data read.
func (p *plan) evaluate(d *fetched) *ConsumptionResult {
	req, fl, loc, start, end, tariff := p.req, p.fl, p.loc, p.start, p.end, d.tariff
	ev := &evaluation{
		start: start, end: end,
		series:         buildIndexSeries(d.readings, p.strategy, start, end),
		points:         d.points,
		fromLoadCurve:  p.loadCurveSteps && (len(d.points) > 0 || !p.useIndexes),
		completion:     p.completion,
		tou:            newTimeOfUse(tariff, loc, d.colours),
		canInterpolate: interpolationFor(p.strategy, start, end),
		heading:        dialHeading(tariff),
	}
	b := p.itemBuilder(tariff)
	b.meterChanges, b.unconverted = ev.series.meterChanges, ev.series.unconverted
	if fl.name == FluidGas {
		ev.heading = func(string) string { return registry.GasHeading }
	}
	if fl.volume {
		unit := volumeUnit(d.readings)
		ev.series.keepVolumeIn(unit)
		b.volumeUnit = &unit
	}

	steps := p.steps
	res := p.result()
	whole := Step{start, end}
	pieces := ev.pieces(steps)
	for k, st := range steps {
		res.Consumptions[k] = b.build(st, pieces[k])
	}
	first, last := piecesSpan(pieces)
	res.ComputationPeriod = computationPeriod(first, last, start, end, p.windowEnd, p.truncated, loc)
	if req.WithGlobalConsumption {
		global := b.build(whole, ev.pieces([]Step{whole})[0])
		res.GlobalConsumption = &global
	}
	return res
}

// itemBuilder is the builder of the plan's items under the tariff read (nil: none): both
// paths of an answer (evaluate, fromDailyTable) make their items with it.
func (p *plan) itemBuilder(tariff *registry.Tariff) *itemBuilder {
	req, fl := p.req, p.fl
	b := &itemBuilder{loc: p.loc, tariff: tariff, ratios: req.WithRatioByTariffHeading, perWh: fl.perWh, energyDecimals: energyDecimals}
	if fl.perWh != 1 { // kWh: the same absolute precision as Wh to 0.001
		b.energyDecimals = energyDecimals + 3
	}
	if tariff != nil && !req.WithoutCost {
		b.pricing = newPricing(tariff, p.loc)
	}
	if req.WithCarbonFootprint {
		coef := carbonCoefficient(tariff, p.coefficient)
		b.carbon = &coef
	}
	return b
}

// result is the plan's answer without its items yet.
func (p *plan) result() *ConsumptionResult {
	return &ConsumptionResult{
		Period:       Period{p.start, p.end},
		Step:         FormatStep(p.start, p.end, p.loc, p.req.StepUnit, p.req.StepValue),
		Units:        Units{Cost: UnitCost, EnergyMeter: p.fl.energyUnit, CarbonFootprint: UnitCarbon},
		Consumptions: make([]Consumption, len(p.steps)),
	}
}

// pieces computes the energy pieces of each step (sorted, contiguous).
func (ev *evaluation) pieces(steps []Step) [][]piece {
	if ev.fromLoadCurve {
		return loadCurvePieces(ev.points, steps, ev.tou)
	}
	ps := indexPieces(ev.series.intervals, steps, ev.canInterpolate, ev.heading)
	if ev.completion {
		ps = completeWithLoadCurve(ps, steps, ev.points, ev.tou, ev.start, ev.end)
	}
	return ps
}

// dialHeading maps a meter dial to its tariff heading: the tariff's dialHeadings, else its
// default heading; without a tariff (or for a dial neither maps) the dial number itself.
func dialHeading(t *registry.Tariff) func(string) string {
	return func(dial string) string {
		if t == nil {
			return dial
		}
		if h, ok := t.DialHeadings[dial]; ok {
			return h
		}
		if t.DefaultHeading != "" {
			return t.DefaultHeading
		}
		return dial
	}
}

// piecesSpan is the first and last instants of the pieces (zero times when there are none).
func piecesSpan(pieces [][]piece) (first, last time.Time) {
	for _, ps := range pieces {
		a, b := span(ps)
		if !a.IsZero() && (first.IsZero() || a.Before(first)) {
			first = a
		}
		if b.After(last) {
			last = b
		}
	}
	return first, last
}

// computationPeriod is present when the computed period differs from the requested one: it
// spans the first to the last instant computed (leading or trailing parts without data are
// left out) and ends where the 1,200-item window stops, so a client continues from its end.
// first and last are the first and last instants computed (zero when none).
func computationPeriod(first, last, start, end, windowEnd time.Time, truncated bool, loc *time.Location) *Period {
	if first.IsZero() { // no data at all: only the window's end is worth telling
		if truncated {
			return &Period{start.In(loc), windowEnd.In(loc)}
		}
		return nil
	}
	if truncated {
		last = windowEnd
	}
	if first.Equal(start) && last.Equal(end) {
		return nil
	}
	return &Period{first.In(loc), last.In(loc)}
}
