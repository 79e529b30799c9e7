package consumption

import (
	"math"
	"sort"
	"time"

	"energy/schema/registry"
)

// Output precision. Sums are kept exact (float64) and rounded only here: energy to the milliwatt-
// hour (index energies are whole Wh; interpolation and load curves give fractions), money to
// 1e-4 EUR (so that a year of daily items adds up to the yearly figure within a cent), carbon to
// the gram's thousandth, quality to 0.01 %.
const (
	energyDecimals  = 3
	moneyDecimals   = 4
	carbonDecimals  = 6
	qualityDecimals = 2
	volumeDecimals  = 3
)

func roundTo(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p)/p + 0 // + 0 turns -0 into 0
}

// itemBuilder turns the pieces of a step into a consumption item.
type itemBuilder struct {
	loc            *time.Location
	tariff         *registry.Tariff // nil: no tariff
	headings       []string         // the tariff's headings (worked out once, not per item)
	byHeading      []amount         // scratch of sum: energy by heading
	costs          []amount         // scratch of sum: energy cost by heading
	curve          []curveEnergy    // scratch of sum: load-curve energy by heading
	spans          []timeSpan       // scratch of sum: the pieces' spans
	realSpans      []timeSpan       // scratch of sum: the real pieces' spans
	pricing        *pricing         // nil: no cost member
	carbon         *float64         // coefficient; nil: no carbonFootprint member
	ratios         bool
	meterChanges   []time.Time // sorted
	unconverted    []timeSpan  // spans of unknown energy (gas readings without kWh factor), by start
	perWh          float64     // output energy unit per Wh: 1 (Wh) or 0.001 (kWh)
	energyDecimals int
	volumeUnit     *string   // gas: items carry their volume in this unit; nil: no volume member
	floats         []float64 // slab of the items' *float64 members: one allocation for many items
	costSlab       []Cost    // slab of the items' cost members
	components     map[string]float64
}

// float returns a pointer to v, carved from a slab shared by the answer's items.
func (b *itemBuilder) float(v float64) *float64 {
	if len(b.floats) == 0 {
		b.floats = make([]float64, 256)
	}
	p := &b.floats[0]
	*p, b.floats = v, b.floats[1:]
	return p
}

// stepSums is what one pass over a step's pieces adds up: energy and energy cost by heading,
// the covered and real time, and the flags of the data that went in.
type stepSums struct {
	byHeading, costs                                    []amount      // Wh, EUR (when priced) by heading
	curve                                               []curveEnergy // load-curve W·s by heading
	uncoloured                                          int64         // load-curve W·s inside colour days the calendar lacks
	missingColour                                       bool
	volume                                              float64 // index units (gas)
	covered, real                                       time.Duration
	natures                                             natureSet
	negative, unreliable, estimated, usesLC, aggregated bool
}

// sum walks the step's pieces once. Coverage is the union of the pieces' spans: merged on the
// way while the pieces come sorted by start (load-curve pieces, one dial's intervals); from the
// first piece out of order on, the spans are collected and sorted once at the end.
func (b *itemBuilder) sum(ps []piece) stepSums {
	s := stepSums{byHeading: b.byHeading[:0], costs: b.costs[:0]}
	var all, reals spanUnion
	spans, realSpans := b.spans[:0], b.realSpans[:0]
	s.curve = b.curve[:0]
	sorted := true
	for i := range ps {
		p := &ps[i]
		switch {
		case p.loadCurve:
			var day *localDay
			if b.pricing != nil {
				day = b.pricing.day(p.start) // a load-curve piece never crosses a local midnight
			}
			b.addCurvePiece(&s, p.heading, day, wattSeconds(p.watts, p.end.Sub(p.start)))
		default:
			s.byHeading = addAmount(s.byHeading, p.heading, p.wh)
			if b.pricing != nil {
				s.costs = b.pricing.addEnergyCost(s.costs, p)
			}
		}
		s.volume += p.volume
		s.natures |= p.natures
		s.negative = s.negative || p.negative
		s.unreliable = s.unreliable || p.unreliable
		s.estimated = s.estimated || p.estimated
		s.usesLC = s.usesLC || p.loadCurve
		s.aggregated = s.aggregated || p.source != ps[0].source // more than one source
		if sorted && i > 0 && p.start.Before(ps[i-1].start) {
			sorted = false
			spans, realSpans = appendSpans(spans, realSpans, ps[:i]) // the ones merged so far
		}
		if sorted {
			all.add(p.start, p.end)
			if !p.estimated {
				reals.add(p.start, p.end)
			}
		} else {
			spans, realSpans = appendSpans(spans, realSpans, ps[i:i+1])
		}
	}
	if sorted {
		s.covered, s.real = all.length(), reals.length()
	} else {
		s.covered, s.real = unionLength(spans), unionLength(realSpans)
	}
	addCurveEnergy(&s)
	// The scratch buffers are kept, grown, for the next step.
	b.spans, b.realSpans, b.curve = spans, realSpans, s.curve
	b.byHeading, b.costs = s.byHeading, s.costs
	return s
}

// appendSpans appends the spans of ps to all, and those of its real pieces to reals.
func appendSpans(all, reals []timeSpan, ps []piece) ([]timeSpan, []timeSpan) {
	for i := range ps {
		all = append(all, timeSpan{ps[i].start, ps[i].end})
		if !ps[i].estimated {
			reals = append(reals, timeSpan{ps[i].start, ps[i].end})
		}
	}
	return all, reals
}

// build makes the item of a step from its pieces.
func (b *itemBuilder) build(st Step, ps []piece) Consumption {
	return b.item(st, b.sum(ps), len(ps) > 0)
}

// item makes the item of a step from its sums; hasData tells whether any data went in.
func (b *itemBuilder) item(st Step, s stepSums, hasData bool) Consumption {
	it := Consumption{
		Period:       Period{st.Start.In(b.loc), st.End.In(b.loc)},
		ErrorFlags:   []string{},
		IndexNatures: []string{},
		Status:       StatusNoData,
		Nature:       NatureReal,
	}
	duration := st.End.Sub(st.Start)
	var total *float64
	if hasData {
		if b.tariff != nil {
			if b.headings == nil {
				b.headings = b.tariff.Headings()
			}
			for _, h := range b.headings {
				if !holds(s.byHeading, h) {
					s.byHeading = addAmount(s.byHeading, h, 0)
				}
			}
			b.byHeading = s.byHeading
		}
		var sum float64
		it.EnergyMeter.ByTariffHeading = make(map[string]float64, len(s.byHeading))
		for _, a := range s.byHeading {
			sum += a.value
			it.EnergyMeter.ByTariffHeading[a.name] = roundTo(a.value*b.perWh, b.energyDecimals)
		}
		sum += float64(s.uncoloured) / 3600
		total = &sum
		it.EnergyMeter.Total = b.float(roundTo(sum*b.perWh, b.energyDecimals))
		it.Status = StatusPartial
		if s.covered >= duration {
			it.Status = StatusComplete
		}
		if s.estimated {
			it.Nature = NatureEstimated
		}
		it.Quality = roundTo(100*float64(s.real)/float64(duration), qualityDecimals)
		it.IndexNatures = s.natures.names()
		it.Aggregated = s.aggregated
		it.UsingLoadCurve = s.usesLC
		if b.pricing != nil && !s.missingColour { // a cost without that energy would be wrong
			it.Cost = b.cost(st, s.costs)
		}
	} else {
		it.EnergyMeter.ByTariffHeading = map[string]float64{}
	}
	if s.negative {
		it.ErrorFlags = append(it.ErrorFlags, FlagNegativeConsumption)
	}
	if s.covered < duration {
		it.ErrorFlags = append(it.ErrorFlags, FlagMissingData)
	}
	if b.holdsMeterChange(st) {
		it.ErrorFlags = append(it.ErrorFlags, FlagMeterChange)
	}
	if s.unreliable {
		it.ErrorFlags = append(it.ErrorFlags, FlagUnreliableLoadCurve)
	}
	if s.missingColour {
		it.ErrorFlags = append(it.ErrorFlags, FlagMissingDayColour)
	}
	if b.touchesUnconverted(st) {
		it.ErrorFlags = append(it.ErrorFlags, FlagMissingConversionFactor)
	}
	if b.volumeUnit != nil {
		it.Volume = &Volume{Unit: *b.volumeUnit}
		if hasData {
			it.Volume.Total = b.float(roundTo(s.volume, volumeDecimals))
		}
	}
	if b.carbon != nil {
		it.CarbonFootprint = carbonFootprint(total, *b.carbon)
	}
	if b.ratios {
		it.Ratios = b.ratiosOf(s.byHeading, total)
	}
	return it
}

// holdsMeterChange: a meter change at the step's start counts, one at its end belongs to the
// next step.
func (b *itemBuilder) holdsMeterChange(st Step) bool {
	i := sort.Search(len(b.meterChanges), func(i int) bool { return !b.meterChanges[i].Before(st.Start) })
	return i < len(b.meterChanges) && b.meterChanges[i].Before(st.End)
}

// touchesUnconverted tells whether a span of unknown energy overlaps the step.
func (b *itemBuilder) touchesUnconverted(st Step) bool {
	for _, u := range b.unconverted {
		if !u.a.Before(st.End) {
			return false // by start: the rest start later still
		}
		if u.b.After(st.Start) {
			return true
		}
	}
	return false
}

// cost is the step's cost member from its energy cost by heading and its standing charge.
func (b *itemBuilder) cost(st Step, energy []amount) *Cost {
	standing, components := b.pricing.standingCharge(st.Start, st.End)
	if len(b.costSlab) == 0 {
		b.costSlab = make([]Cost, 64)
	}
	c := &b.costSlab[0]
	b.costSlab = b.costSlab[1:]
	c.ByTariffHeading = make(map[string]float64, len(energy))
	total := standing
	for _, a := range energy {
		total += a.value
		c.ByTariffHeading[a.name] = roundTo(a.value, moneyDecimals)
	}
	c.StandingChargeByComponents = b.componentsMap(components)
	c.StandingCharge = roundTo(standing, moneyDecimals)
	c.Total = roundTo(total, moneyDecimals)
	return c
}

// componentsMap is the rounded standing charge by component. Consecutive items mostly carry
// the same (every hour of a day, every day of a year): they share one map, which the answer
// never changes.
func (b *itemBuilder) componentsMap(components []amount) map[string]float64 {
	if prev := b.components; prev != nil && len(prev) == len(components) {
		same := true
		for _, a := range components {
			if v, ok := prev[a.name]; !ok || v != roundTo(a.value, moneyDecimals) {
				same = false
				break
			}
		}
		if same {
			return prev
		}
	}
	m := make(map[string]float64, len(components))
	for _, a := range components {
		m[a.name] = roundTo(a.value, moneyDecimals)
	}
	b.components = m
	return m
}

// ratiosOf are the shares of the energy by heading and by heading group, from unrounded sums;
// empty when the energy is null or 0.
func (b *itemBuilder) ratiosOf(byHeading []amount, total *float64) *Ratios {
	r := &Ratios{ByTariffHeading: make(map[string]float64, len(byHeading)), ByTariffHeadingGroup: make(map[string]float64, len(byHeading))}
	if total == nil || *total <= 0 {
		return r
	}
	for _, a := range byHeading {
		r.ByTariffHeading[a.name] = a.value / *total
		g := a.name
		if b.tariff != nil {
			g = b.tariff.Group(a.name)
		}
		r.ByTariffHeadingGroup[g] += a.value / *total
	}
	return r
}
