package consumption

import (
	"context"
	"slices"
	"sort"
	"time"

	"energy/schema/registry"
)

// DayAnswer is the consumption endpoint's answer for one local day of a site's fluid taken as
// the request's period (startTs and endTs the day's local midnights, step DAYS, every other
// parameter at its default, without cost): the one item of that answer. It is what the daily
// energy table stores.
type DayAnswer struct {
	Day  time.Time // local midnight, in the site's zone
	Item Consumption
	// ByDial is the item's energy by meter dial (electricity; empty for gas), in the answer's
	// unit: the answer the site would get without tariff, where a dial is its own heading.
	ByDial map[string]float64
}

// DaysPerCall bounds the days Days answers at once (the readings of that span are read once).
const DaysPerCall = 92

// Days answers each local day of the site, in its zone, from the day holding first to the day
// holding last (both included, at most DaysPerCall days), with the rules of Compute: each day
// is evaluated as a request of its own. The days share one read of the readings, as
// ComputeAll's requests do; gas days only when that read has one volume unit for every day
// (oneUnitEachDay), else they are read one by one (a day's volume unit is the latest reading's
// around that day).
func (c *Engine) Days(ctx context.Context, site registry.Site, fluid string, first, last time.Time) ([]DayAnswer, error) {
	plans, err := c.dayPlans(site, fluid, first, last, DaysPerCall)
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	var shared *fetched
	if shareOneReadButVolume(plans) {
		if shared, err = c.fetch(ctx, site, plans[0], plans[0].start, plans[len(plans)-1].fetchEnd); err != nil {
			return nil, err
		}
		if plans[0].fl.volume && !oneUnitEachDay(plans, shared.readings) {
			shared = nil
		}
	}
	if shared != nil {
		return c.answerDays(site, plans, shared), nil
	}
	out := make([]DayAnswer, len(plans))
	for i, p := range plans {
		data, err := c.fetch(ctx, site, p, p.start, p.fetchEnd)
		if err != nil {
			return nil, err
		}
		out[i] = answerDay(p, data, seriesBounds(data.readings))
	}
	return out, nil
}

// answerDays answers the days' plans (consecutive days of one electricity site) on one read's
// data. Without estimated readings, a day's answer is the day's step of one DAYS request over
// all the days that interpolates at every midnight (ALL_ESTIMATED: interpolation anywhere, and
// no estimated reading to keep or drop), so the span is evaluated at once; otherwise each day
// is evaluated on its own.
func (c *Engine) answerDays(site registry.Site, plans []*plan, d *fetched) []DayAnswer {
	out := make([]DayAnswer, len(plans))
	if !slices.ContainsFunc(d.readings, reading.estimated) {
		whole, err := c.plan(site, Request{Fluid: plans[0].fl.name, Start: plans[0].start, End: plans[len(plans)-1].end,
			StepUnit: UnitDays, StepValue: 1, IndexStrategy: StrategyAllEstimated, WithoutCost: true})
		if err == nil && !whole.truncated && len(whole.steps) == len(plans) {
			res := whole.evaluate(d)
			if plans[0].fl.volume { // gas: no dials
				for i, p := range plans {
					out[i] = DayAnswer{Day: p.start, Item: res.Consumptions[i], ByDial: map[string]float64{}}
				}
				return out
			}
			dials := res
			if d.tariff != nil { // without one, a dial is its own heading already
				bare := *d
				bare.tariff = nil
				dials = whole.evaluate(&bare)
			}
			for i, p := range plans {
				out[i] = DayAnswer{Day: p.start, Item: res.Consumptions[i], ByDial: dials.Consumptions[i].EnergyMeter.ByTariffHeading}
			}
			return out
		}
	}
	bounds := seriesBounds(d.readings)
	for i, p := range plans {
		out[i] = answerDay(p, d, bounds)
	}
	return out
}

// oneUnitEachDay tells whether gas days' plans can be answered from one read of readings:
// every reading read is in one unit, and each day's own read (its window, readingWindow around
// the day) holds a reading. A day's volume unit is then that unit, as its own read would give
// it (the unit of the latest reading that read finds), though the latest reading of the whole
// read may lie days away.
func oneUnitEachDay(plans []*plan, rs []reading) bool {
	if len(rs) == 0 {
		return false
	}
	ts := make([]time.Time, len(rs))
	for i, r := range rs {
		if r.unit != rs[0].unit {
			return false
		}
		ts[i] = r.ts
	}
	slices.SortFunc(ts, time.Time.Compare)
	for _, p := range plans {
		span := newReadingSpan(p.start, p.fetchEnd)
		k := sort.Search(len(ts), func(i int) bool { return !ts[i].Before(span.lo) })
		if k == len(ts) || ts[k].After(span.hi) {
			return false
		}
	}
	return true
}

// dayPlans plans the request of each local day of the site from the day holding first to the
// day holding last (at most max days; 0: no limit).
func (c *Engine) dayPlans(site registry.Site, fluid string, first, last time.Time, max int) ([]*plan, error) {
	loc := site.Location()
	var plans []*plan
	y, m, d := first.In(loc).Date()
	for day := time.Date(y, m, d, 0, 0, 0, 0, loc); !day.After(last) && (max == 0 || len(plans) < max); {
		next := time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc)
		p, err := c.plan(site, Request{Fluid: fluid, Start: day, End: next, StepUnit: UnitDays, StepValue: 1, WithoutCost: true})
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
		day = next
	}
	return plans, nil
}

// answerDay evaluates a day's plan on its data, with the energy by dial beside it. Electricity
// days are evaluated on the readings that bound them only (dayReadings): a day's answer depends
// on no other, and a span of many days read at once holds many more.
func answerDay(p *plan, data *fetched, bounds [][2]int) DayAnswer {
	if p.fl.name == FluidElec {
		cut := *data
		cut.readings = dayReadings(data.readings, bounds, p.start, p.end)
		data = &cut
	}
	a := DayAnswer{Day: p.start, Item: p.evaluate(data).Consumptions[0], ByDial: map[string]float64{}}
	if p.fl.name == FluidElec && data.tariff == nil { // a dial is its own heading already
		a.ByDial = a.Item.EnergyMeter.ByTariffHeading
	} else if p.fl.name == FluidElec {
		bare := *data
		bare.tariff = nil
		a.ByDial = p.evaluate(&bare).Consumptions[0].EnergyMeter.ByTariffHeading
	}
	return a
}

// ChangedSpan returns the span whose local days' answers a change of the site's readings of
// the fluid at instants in [lo, hi] can move: the reading intervals that start or end at a
// changed instant reach back to the nearest resolved reading before lo and forward to the
// nearest one after hi (of any point of delivery and dial, with the readings as they are now
// stored), as the endpoint's bracketing read finds them. Without one on a side, that side
// ends at lo (hi).
func (c *Engine) ChangedSpan(ctx context.Context, site registry.Site, fluid string, lo, hi time.Time) (from, to time.Time, err error) {
	fl, err := fluidIn(c.fluids, fluid)
	if err != nil {
		return lo, hi, err
	}
	// A second around the changes, so that the readings at lo and hi do not count as their own
	// brackets: the nearest reading strictly before lo (after hi) is looked for as far as the
	// endpoint looks.
	readings, err := resolveReadings(ctx, c.db, fl, site.TenantID, site.SiteID, allowedNatures(nil),
		lo.Add(-time.Second), hi.Add(time.Second), true, c.now())
	if err != nil {
		return lo, hi, err
	}
	from, to = changedSpan(readings, lo, hi)
	return from, to, nil
}

// changedSpan is ChangedSpan's span on the resolved readings (sorted by series, then ts).
func changedSpan(readings []reading, lo, hi time.Time) (from, to time.Time) {
	type series struct{ pod, dial string }
	before, after := map[series]time.Time{}, map[series]time.Time{}
	for _, r := range readings { // sorted by series, then ts
		k := series{r.pod, r.dial}
		if r.ts.Before(lo) {
			before[k] = r.ts
		}
		if _, seen := after[k]; r.ts.After(hi) && !seen {
			after[k] = r.ts
		}
	}
	from, to = lo.UTC(), hi.UTC()
	for _, ts := range before {
		if ts.Before(from) {
			from = ts
		}
	}
	for _, ts := range after {
		if ts.After(to) {
			to = ts
		}
	}
	return from, to
}

// seriesBounds returns where each series (pod, dial) of readings sorted by series lies:
// readings[b[0]:b[1]].
func seriesBounds(rs []reading) [][2]int {
	var out [][2]int
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j].pod == rs[i].pod && rs[j].dial == rs[i].dial {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// dayReadings returns, of readings sorted by series (pod, dial) then ts, with the series'
// bounds (seriesBounds), each series' readings in [from, to] and those at its nearest instants
// before from and after to (both readings of a meter change at that instant): what the
// series' intervals touching [from, to] are made of. Estimated readings a strategy drops lie
// between real readings inside the period, and those outside it are kept, so the intervals
// are those the whole series gives.
func dayReadings(rs []reading, bounds [][2]int, from, to time.Time) []reading {
	var out []reading
	for _, sb := range bounds {
		s := rs[sb[0]:sb[1]]
		a := sort.Search(len(s), func(k int) bool { return !s[k].ts.Before(from) })
		b := sort.Search(len(s), func(k int) bool { return s[k].ts.After(to) })
		if a > 0 {
			at := s[a-1].ts
			for a > 0 && s[a-1].ts.Equal(at) {
				a--
			}
		}
		if b < len(s) {
			at := s[b].ts
			for b < len(s) && s[b].ts.Equal(at) {
				b++
			}
		}
		out = append(out, s[a:b]...)
	}
	return out
}
