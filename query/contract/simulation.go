// Package contract answers "am I on the right contract?" (GET
// /v2/sites/{site-id}/fluids/elec/tariff-simulations): the site's real energy over a period
// priced under every candidate tariff and under its own, the candidates' subscribed power
// checked against the site's daily max powers, and the candidates ranked by cost.
package contract

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"energy/query/consumption"
	"energy/query/maxpower"
	"energy/schema"
	"energy/schema/registry"
)

// Request is a validated request: the period and the candidate tariffs (electricity tariffs of
// the site's tenant, in request order, without repeats).
type Request struct {
	Start, End time.Time // End excluded
	Candidates []registry.Tariff
}

// Energy sources.
const (
	SourceIndexes   = "INDEXES"
	SourceLoadCurve = "LOAD_CURVE"
)

// TariffSimulation statuses.
const (
	StatusOK                = "OK"
	StatusInsufficientPower = "INSUFFICIENT_POWER"
	StatusNotComputable     = "NOT_COMPUTABLE"
)

// MinLoadCurveQuality is the least load-curve quality (percent of the period covered by real
// points) that a simulation from the load curve accepts.
const MinLoadCurveQuality = 90

// InsufficientDataError is a period whose load curve covers too little to compare tariffs on.
type InsufficientDataError struct {
	Quality, Covered float64 // percent of the period: real points, any point
}

func (e *InsufficientDataError) Error() string {
	return fmt.Sprintf("the site's indexes cannot price every candidate and its load curve covers %.2f %% of the period with real data (%.2f %% with any point); at least %d %% is needed",
		e.Quality, e.Covered, MinLoadCurveQuality)
}

// Engine simulates tariffs on a site's data, through the consumption engine's one read of it.
type Engine struct {
	db          *schema.DB
	reg         *registry.Store
	consumption *consumption.Engine
}

// NewEngine returns the engine; cons is the consumption engine that reads and splits energy.
func NewEngine(db *schema.DB, reg *registry.Store, cons *consumption.Engine) *Engine {
	return &Engine{db: db, reg: reg, consumption: cons}
}

// Compute simulates req's candidates and the site's own tariff on the site's data.
func (e *Engine) Compute(ctx context.Context, site registry.Site, req Request) (*Simulations, error) {
	loc := site.Location()
	start, end := req.Start.In(loc), req.End.In(loc)
	ref, err := e.reference(ctx, site)
	if err != nil {
		return nil, err
	}
	tariffs := candidates(req.Candidates, ref)
	var daily []maxpower.Daily
	var idx *consumption.IndexEnergy
	var curve curveEnergy
	// When a candidate's schedule already rules the indexes out, the load curve is read at once,
	// beside the max powers, and the indexes not at all.
	curveOnly := needsLoadCurve(ref, tariffs)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		daily, err = maxpower.ReadDaily(gctx, e.db, site.TenantID, site.SiteID, loc, start, end)
		return err
	})
	g.Go(func() (err error) {
		if curveOnly {
			curve.energies, curve.quality, curve.covered, err = e.consumption.LoadCurveUnder(gctx, site, start, end, tariffs)
			return err
		}
		idx, err = e.consumption.ReadIndexEnergy(gctx, site, start, end)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := &Simulations{Period: consumption.Period{StartTime: start, EndTime: end}, Simulations: make([]TariffSimulation, len(tariffs))}
	if ref != nil {
		res.Reference = &ref.TariffID
	}
	if p := maxpower.Peak(daily); p != nil {
		res.MaxPower = &PowerPeak{Value: p.Watts, Date: p.DateString()}
	}
	var energies []consumption.PricedEnergy
	if !curveOnly && fromIndexes(idx, ref, tariffs) {
		res.EnergySource, res.Quality = SourceIndexes, idx.Item.Quality
		for _, t := range tariffs {
			energies = append(energies, idx.Under(t))
		}
	} else {
		if !curveOnly {
			if curve.energies, curve.quality, curve.covered, err = e.consumption.LoadCurveUnder(ctx, site, start, end, tariffs); err != nil {
				return nil, err
			}
		}
		if curve.quality < MinLoadCurveQuality {
			return nil, &InsufficientDataError{Quality: curve.quality, Covered: curve.covered}
		}
		energies = curve.energies
		res.EnergySource, res.Quality = SourceLoadCurve, curve.quality
	}
	for i, t := range tariffs {
		res.Simulations[i] = simulate(t, energies[i], daily, start, loc)
	}
	rank(res.Simulations, ref)
	return res, nil
}

// reference is the site's own electricity tariff; nil when it has none (or it was removed).
func (e *Engine) reference(ctx context.Context, site registry.Site) (*registry.Tariff, error) {
	if site.TariffID == "" {
		return nil, nil
	}
	t, err := e.reg.Directory.Tariff(ctx, site.TenantID, site.TariffID)
	if err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return &t, nil
}

// candidates are the tariffs to simulate in request order, the reference last unless named.
func candidates(named []registry.Tariff, ref *registry.Tariff) []*registry.Tariff {
	out := make([]*registry.Tariff, 0, len(named)+1)
	for i := range named {
		out = append(out, &named[i])
	}
	if ref != nil && !slices.ContainsFunc(named, func(t registry.Tariff) bool { return t.TariffID == ref.TariffID }) {
		out = append(out, ref)
	}
	return out
}

// curveEnergy is the load curve priced under every tariff, with its coverage (percent).
type curveEnergy struct {
	energies         []consumption.PricedEnergy
	quality, covered float64
}

// needsLoadCurve tells whether some tariff cannot be priced from indexes whatever they hold: it
// has more than one heading on another schedule than the site's own tariff (or the site has
// none).
func needsLoadCurve(ref *registry.Tariff, tariffs []*registry.Tariff) bool {
	for _, t := range tariffs {
		if len(t.Headings()) > 1 && (ref == nil || !sameSchedule(t.TimeOfUse, ref.TimeOfUse)) {
			return true
		}
	}
	return false
}

// fromIndexes tells whether the site's indexes give the period's energy and price every tariff
// exactly: a tariff of a single heading takes the whole energy; another must map exactly the
// dials the indexes carry, on the site's own tariff's time of use (the schedule the meter
// registers its dials on).
func fromIndexes(idx *consumption.IndexEnergy, ref *registry.Tariff, tariffs []*registry.Tariff) bool {
	if idx.Item.Status == consumption.StatusNoData {
		return false
	}
	dials := idx.Item.EnergyMeter.ByTariffHeading
	for _, t := range tariffs {
		if len(t.Headings()) == 1 {
			continue
		}
		if ref == nil || len(t.DialHeadings) != len(dials) || !sameSchedule(t.TimeOfUse, ref.TimeOfUse) {
			return false
		}
		for dial := range dials {
			if _, ok := t.DialHeadings[dial]; !ok {
				return false
			}
		}
	}
	return true
}

func sameSchedule(a, b []registry.TimeOfUse) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// simulate is the item of tariff t priced on energy e, with its power check against the
// site's daily max powers.
func simulate(t *registry.Tariff, e consumption.PricedEnergy, daily []maxpower.Daily, start time.Time, loc *time.Location) TariffSimulation {
	s := TariffSimulation{TariffID: t.TariffID, Option: t.Option, SubscribedPowerKva: t.SubscribedPowerKva, Status: StatusOK,
		EnergyMeter: SimulatedEnergy{Total: round(e.Wh, 3), ByTariffHeading: roundAll(e.ByHeading, 3)}}
	if kva := t.SubscribedPowerKva; kva != nil && len(daily) > 0 {
		n := maxpower.Overruns(daily, *kva)
		s.OverrunDays = &n
		if n > 0 {
			s.Status = StatusInsufficientPower
		}
	}
	if reason := notComputable(t, e, start.In(loc).Format(time.DateOnly)); reason != "" {
		s.Status, s.Reason = StatusNotComputable, reason
		return s
	}
	s.Cost = &SimulatedCost{Total: round(e.EnergyCost+e.StandingCharge, 2), Energy: round(e.EnergyCost, 2),
		StandingCharge: round(e.StandingCharge, 2), ByTariffHeading: roundAll(e.CostByHeading, 2)}
	return s
}

// notComputable names why t cannot price the period starting on local date first, citing the
// first date concerned; "" when it can.
func notComputable(t *registry.Tariff, e consumption.PricedEnergy, first string) string {
	noPrice := ""
	if len(t.Prices) == 0 || t.Prices[0].ValidFrom > first {
		noPrice = first
	}
	switch {
	case e.MissingColour != "" && (noPrice == "" || e.MissingColour < noPrice):
		return fmt.Sprintf("colour day %s is missing from day-colour calendar %s", e.MissingColour, t.DayColourCalendarID)
	case noPrice != "":
		return fmt.Sprintf("no price in force on %s (the tariff's first price is valid from %s)", noPrice, firstValidFrom(t))
	}
	return ""
}

func firstValidFrom(t *registry.Tariff) string {
	if len(t.Prices) == 0 {
		return "no date"
	}
	return t.Prices[0].ValidFrom
}

// rank sorts the simulations by cost (ties in request order, the not computable last), marks
// the cheapest OK one and gives each its difference against the reference's cost.
func rank(sims []TariffSimulation, ref *registry.Tariff) {
	sort.SliceStable(sims, func(i, j int) bool {
		a, b := sims[i].Cost, sims[j].Cost
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		default:
			return a.Total < b.Total
		}
	})
	for i := range sims {
		if sims[i].Status == StatusOK {
			sims[i].Cheapest = true
			break
		}
	}
	if ref == nil {
		return
	}
	var refCost *SimulatedCost
	for _, s := range sims {
		if s.TariffID == ref.TariffID {
			refCost = s.Cost
		}
	}
	if refCost == nil {
		return
	}
	for i := range sims {
		if sims[i].Cost == nil {
			continue
		}
		diff := round(sims[i].Cost.Total-refCost.Total, 2)
		d := &CostDifference{Cost: diff}
		if refCost.Total != 0 {
			rate := round(100*diff/refCost.Total, 2)
			d.Rate = &rate
		}
		sims[i].DifferenceVsReference = d
	}
}

func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p)/p + 0 // + 0 turns -0 into 0
}

func roundAll(m map[string]float64, decimals int) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round(v, decimals)
	}
	return out
}
