// Package maxpower answers the daily max powers of a site at calendar steps
// (GET /v2/sites/{site-id}/fluids/elec/max-powers): the highest daily max power of each step,
// the dates that have a reading, and the dates above the subscribed power of the site's tariff.
package maxpower

import (
	"context"
	"errors"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/registry"
)

// Request is a validated request; the HTTP layer checks it.
type Request struct {
	Start, End time.Time // End excluded
	StepUnit   string    // "" (the whole period), DAYS, MONTHS or YEARS
	StepValue  int       // ≥ 1
}

// Unit of max powers.
const UnitWatt = "W"

// MaxPowerResult is the answer of the max-power endpoint (its schema name in the OpenAPI description).
type MaxPowerResult struct {
	Period             consumption.Period  `json:"period" doc:"Requested period (timestamps with the site's offset)."`
	ComputationPeriod  *consumption.Period `json:"computationPeriod,omitempty" doc:"Present when the period holds more than 1,200 steps: the period of the first 1,200, returned; continue from its endTime."`
	Step               string              `json:"step" doc:"ISO 8601 duration of the step." example:"P1M"`
	Unit               string              `json:"unit" example:"W"`
	SubscribedPowerKva *int                `json:"subscribedPowerKva" doc:"The subscribed power of the site's tariff; null when the tariff has none or the site no tariff." example:"9"`
	MaxPowers          []StepMaxPower      `json:"maxPowers"`
}

// StepMaxPower is one step.
type StepMaxPower struct {
	Period      consumption.Period `json:"period"`
	Value       *int64             `json:"value" doc:"The highest daily max power (W) of the step's local dates; null without reading." example:"7420"`
	Date        *string            `json:"date" doc:"The first local date (yyyy-MM-dd) that reached value; null without reading." example:"2025-01-12"`
	Days        int                `json:"days" doc:"Local dates of the step that have a reading." example:"31"`
	OverrunDays *int               `json:"overrunDays" doc:"Local dates whose max power exceeds the subscribed power (kVA × 1,000 W); null without subscribed power." example:"0"`
	Status      string             `json:"status" enum:"COMPLETE,PARTIAL,NO_DATA" doc:"COMPLETE: every local date of the step has a reading; PARTIAL: some; NO_DATA: none."`
}

// Engine computes max-power answers.
type Engine struct {
	db  *schema.DB
	reg *registry.Store
}

// NewEngine returns the engine over db, reading sites' tariffs from reg's directory.
func NewEngine(db *schema.DB, reg *registry.Store) *Engine { return &Engine{db: db, reg: reg} }

// SubscribedPower is the subscribed power (kVA) of the site's electricity tariff; nil when the
// site has no tariff, the tariff no longer exists or says none.
func SubscribedPower(ctx context.Context, reg *registry.Store, site registry.Site) (*int, error) {
	if site.TariffID == "" {
		return nil, nil
	}
	t, err := reg.Directory.Tariff(ctx, site.TenantID, site.TariffID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return t.SubscribedPowerKva, nil
}

// Compute answers req for the site. A local date belongs to the step in which it starts (its
// local midnight); steps follow the site's calendar as consumption steps do.
func (e *Engine) Compute(ctx context.Context, site registry.Site, req Request) (*MaxPowerResult, error) {
	loc := site.Location()
	start, end := req.Start.In(loc), req.End.In(loc)
	steps, truncated := consumption.Steps(start, end, loc, req.StepUnit, req.StepValue, consumption.MaxSteps)
	if len(steps) == 0 {
		return nil, errors.New("max powers: end is not after start")
	}
	windowEnd := steps[len(steps)-1].End
	kva, err := SubscribedPower(ctx, e.reg, site)
	if err != nil {
		return nil, err
	}
	days, err := ReadDaily(ctx, e.db, site.TenantID, site.SiteID, loc, start, windowEnd)
	if err != nil {
		return nil, err
	}
	res := &MaxPowerResult{
		Period: consumption.Period{StartTime: start, EndTime: end},
		Step:   consumption.FormatStep(start, end, loc, req.StepUnit, req.StepValue),
		Unit:   UnitWatt, SubscribedPowerKva: kva,
		MaxPowers: make([]StepMaxPower, len(steps)),
	}
	if truncated {
		res.ComputationPeriod = &consumption.Period{StartTime: start, EndTime: windowEnd.In(loc)}
	}
	i := 0
	for k, st := range steps {
		from, to := NextMidnight(st.Start, loc), NextMidnight(st.End, loc)
		for i < len(days) && days[i].Date.Before(from) {
			i++
		}
		j := i
		for j < len(days) && days[j].Date.Before(to) {
			j++
		}
		res.MaxPowers[k] = item(st, days[i:j], datesBetween(from, to, loc), kva, loc)
		i = j
	}
	return res, nil
}

// item is the answer of one step holding dates local dates, of which days have a reading.
func item(st consumption.Step, days []Daily, dates int, kva *int, loc *time.Location) StepMaxPower {
	it := StepMaxPower{Period: consumption.Period{StartTime: st.Start.In(loc), EndTime: st.End.In(loc)}, Days: len(days), Status: consumption.StatusNoData}
	if kva != nil {
		n := Overruns(days, *kva)
		it.OverrunDays = &n
	}
	if p := Peak(days); p != nil {
		w, d := p.Watts, p.DateString()
		it.Value, it.Date = &w, &d
		it.Status = consumption.StatusPartial
		if len(days) == dates {
			it.Status = consumption.StatusComplete
		}
	}
	return it
}

// datesBetween counts the local midnights in [from, to), both local midnights.
func datesBetween(from, to time.Time, loc *time.Location) int {
	n := 0
	for d := from; d.Before(to); n++ {
		y, m, day := d.In(loc).Date()
		d = consumption.WallClock(y, m, day+1, 0, 0, 0, 0, loc)
	}
	return n
}
