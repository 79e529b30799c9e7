package query

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
)

func roundTo(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p)/p + 0 // + 0 turns -0 into 0
}

// itemBuilder turns the pieces of a step into a consumption item.
type itemBuilder struct {
	loc          *time.Location
	tariff       *registry.Tariff // nil: no tariff
	headings     []string         // the tariff's headings (worked out once, not per item)
	byHeading    map[string]float64
	spans        []timeSpan // scratch of coverage
	pricing      *pricing   // nil: no cost member
	carbon       *float64   // coefficient; nil: no carbonFootprint member
	ratios       bool
	meterChanges []time.Time // sorted
}

func (b *itemBuilder) build(st Step, ps []piece) Consumption {
	it := Consumption{
		Period:       Period{st.Start.In(b.loc), st.End.In(b.loc)},
		EnergyMeter:  EnergyMeter{ByTariffHeading: map[string]float64{}},
		ErrorFlags:   []string{},
		IndexNatures: []string{},
		Status:       StatusNoData,
		Nature:       NatureReal,
	}
	duration := st.End.Sub(st.Start)
	covered, real := coverage(ps, &b.spans)
	if b.byHeading == nil {
		b.byHeading = map[string]float64{}
	}
	byHeading := b.byHeading // not kept by the item: reused by the next one
	clear(byHeading)
	var (
		natures                                             natureSet
		negative, unreliable, estimated, usesLC, aggregated bool
	)
	for _, p := range ps {
		byHeading[p.heading] += p.wh
		natures |= p.natures
		negative = negative || p.negative
		unreliable = unreliable || p.unreliable
		estimated = estimated || p.estimated
		usesLC = usesLC || p.loadCurve
		aggregated = aggregated || p.source != ps[0].source // more than one source
	}
	var total *float64
	if len(ps) > 0 {
		if b.tariff != nil {
			if b.headings == nil {
				b.headings = b.tariff.Headings()
			}
			for _, h := range b.headings {
				if _, ok := byHeading[h]; !ok {
					byHeading[h] = 0
				}
			}
		}
		var sum float64
		for h, v := range byHeading {
			sum += v
			it.EnergyMeter.ByTariffHeading[h] = roundTo(v, energyDecimals)
		}
		total = &sum
		rounded := roundTo(sum, energyDecimals)
		it.EnergyMeter.Total = &rounded
		it.Status = StatusPartial
		if covered >= duration {
			it.Status = StatusComplete
		}
		if estimated {
			it.Nature = NatureEstimated
		}
		it.Quality = roundTo(100*float64(real)/float64(duration), qualityDecimals)
		it.IndexNatures = natures.names()
		it.Aggregated = aggregated
		it.UsingLoadCurve = usesLC
		if b.pricing != nil {
			it.Cost = b.cost(st, ps)
		}
	}
	if negative {
		it.ErrorFlags = append(it.ErrorFlags, FlagNegativeConsumption)
	}
	if covered < duration {
		it.ErrorFlags = append(it.ErrorFlags, FlagMissingData)
	}
	if b.holdsMeterChange(st) {
		it.ErrorFlags = append(it.ErrorFlags, FlagMeterChange)
	}
	if unreliable {
		it.ErrorFlags = append(it.ErrorFlags, FlagUnreliableLoadCurve)
	}
	if b.carbon != nil {
		it.CarbonFootprint = carbonFootprint(total, *b.carbon)
	}
	if b.ratios {
		it.Ratios = b.ratiosOf(byHeading, total)
	}
	return it
}

// holdsMeterChange: a meter change at the step's start counts, one at its end belongs to the
// next step.
func (b *itemBuilder) holdsMeterChange(st Step) bool {
	i := sort.Search(len(b.meterChanges), func(i int) bool { return !b.meterChanges[i].Before(st.Start) })
	return i < len(b.meterChanges) && b.meterChanges[i].Before(st.End)
}

func (b *itemBuilder) cost(st Step, ps []piece) *Cost {
	energy := b.pricing.energyCost(ps)
	standing, components := b.pricing.standingCharge(st.Start, st.End)
	c := &Cost{StandingChargeByComponents: map[string]float64{}, ByTariffHeading: map[string]float64{}}
	total := standing
	for h, v := range energy {
		total += v
		c.ByTariffHeading[h] = roundTo(v, moneyDecimals)
	}
	for k, v := range components {
		c.StandingChargeByComponents[k] = roundTo(v, moneyDecimals)
	}
	c.StandingCharge = roundTo(standing, moneyDecimals)
	c.Total = roundTo(total, moneyDecimals)
	return c
}

// ratiosOf are the shares of the energy by heading and by heading group, from unrounded sums;
// empty when the energy is null or 0.
func (b *itemBuilder) ratiosOf(byHeading map[string]float64, total *float64) *Ratios {
	r := &Ratios{ByTariffHeading: map[string]float64{}, ByTariffHeadingGroup: map[string]float64{}}
	if total == nil || *total <= 0 {
		return r
	}
	for h, v := range byHeading {
		r.ByTariffHeading[h] = v / *total
		g := h
		if b.tariff != nil {
			g = b.tariff.Group(h)
		}
		r.ByTariffHeadingGroup[g] += v / *total
	}
	return r
}
