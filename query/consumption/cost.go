package consumption

import (
	"sort"
	"time"

	"energy/schema/registry"
)

// pricing prices a site's energy under its tariff. Price and standing-charge periods start on
// local dates of the site and run until the next one; a day before the first period has no
// price (its energy and standing charge are not costed).
type pricing struct {
	loc      *time.Location
	prices   []registry.PricePeriod          // by ValidFrom
	standing []registry.StandingChargePeriod // by ValidFrom
	days     map[dayKey]*localDay            // the local days met so far
	last     *localDay                       // the last one looked up
	// Result of standingCharge, reused by the next call: an answer's items copy it (rounded)
	// before asking again.
	components []amount
}

// dayKey is a local date: year, month and day.
type dayKey struct {
	y int
	m time.Month
	d int
}

// localDay is what the cost of a local day needs, worked out once per request: a year of
// HOURS items walks each day dozens of times.
type localDay struct {
	key        dayKey
	start, end time.Time          // local midnights
	prices     map[string]float64 // EUR/kWh by heading in force that day; nil before the first period
	daily      []amount           // by component (in name order), the yearly standing charge in force ÷ days of the day's calendar year; none before the first period
}

func newPricing(t *registry.Tariff, loc *time.Location) *pricing {
	p := &pricing{loc: loc, prices: append([]registry.PricePeriod(nil), t.Prices...),
		standing: append([]registry.StandingChargePeriod(nil), t.StandingCharges...), days: map[dayKey]*localDay{},
	}
	sort.SliceStable(p.prices, func(i, j int) bool { return p.prices[i].ValidFrom < p.prices[j].ValidFrom })
	sort.SliceStable(p.standing, func(i, j int) bool { return p.standing[i].ValidFrom < p.standing[j].ValidFrom })
	return p
}

// pricesOn are the EUR/kWh by heading in force on a local date (yyyy-MM-dd); nil before the
// first period.
func (p *pricing) pricesOn(date string) map[string]float64 {
	i := sort.Search(len(p.prices), func(i int) bool { return p.prices[i].ValidFrom > date }) - 1
	if i < 0 {
		return nil
	}
	return p.prices[i].ByHeading
}

// standingOn is the yearly standing charge by component in force on a local date.
func (p *pricing) standingOn(date string) map[string]float64 {
	i := sort.Search(len(p.standing), func(i int) bool { return p.standing[i].ValidFrom > date }) - 1
	if i < 0 {
		return nil
	}
	return p.standing[i].Yearly
}

// day returns the local day holding instant t.
func (p *pricing) day(t time.Time) *localDay {
	if l := p.last; l != nil && !t.Before(l.start) && t.Before(l.end) {
		return l // most lookups: the next hour of the same day, no zone conversion
	}
	y, m, d := t.In(p.loc).Date()
	k := dayKey{y, m, d}
	if p.last != nil && p.last.key == k {
		return p.last
	}
	ld, ok := p.days[k]
	if !ok {
		date := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		ld = &localDay{
			key:    k,
			start:  WallClock(y, m, d, 0, 0, 0, 0, p.loc),
			end:    WallClock(y, m, d+1, 0, 0, 0, 0, p.loc),
			prices: p.pricesOn(date),
		}
		days := float64(daysInYear(y))
		for c, v := range p.standingOn(date) {
			ld.daily = addAmount(ld.daily, c, v/days)
		}
		p.days[k] = ld
	}
	p.last = ld
	return ld
}

// eachLocalDay calls fn for each part [a, b) of [from, to) inside one local day, with the day
// and its length.
func (p *pricing) eachLocalDay(from, to time.Time, fn func(a, b time.Time, d *localDay, length time.Duration)) {
	for cur := from; cur.Before(to); {
		d := p.day(cur)
		end := d.end
		if !end.After(cur) { // never loop on a zone that misbehaves
			end = to
		}
		b := minTime(end, to)
		fn(cur, b, d, end.Sub(d.start))
		cur = b
	}
}

// addEnergyCost adds the EUR of piece pc to its heading's sum in out: its energy is spread
// evenly over its time span (the linear interpolation of the index at local midnights) and each
// local day's share is priced at that day's price, so a price change inside a step applies day
// by day. A heading without a price adds nothing.
func (p *pricing) addEnergyCost(out []amount, pc *piece) []amount {
	if d := p.day(pc.start); pc.end.After(pc.start) && !pc.end.After(d.end) { // the usual piece: inside one local day
		if price, ok := d.prices[pc.heading]; ok {
			out = addAmount(out, pc.heading, pc.wh/1000*price)
		}
		return out
	}
	length := pc.end.Sub(pc.start)
	p.eachLocalDay(pc.start, pc.end, func(a, b time.Time, d *localDay, _ time.Duration) {
		price, ok := d.prices[pc.heading]
		if !ok {
			return
		}
		wh := pc.wh
		if !a.Equal(pc.start) || !b.Equal(pc.end) {
			wh = pc.wh * float64(b.Sub(a)) / float64(length)
		}
		out = addAmount(out, pc.heading, wh/1000*price)
	})
	return out
}

// standingCharge is the standing charge of [from, to) by component: each local day carries the
// yearly amount ÷ the days of its calendar year (365 or 366), a partial day its covered share
// (of a 23-, 24- or 25-hour day). The sums come in component order, valid until the next call.
func (p *pricing) standingCharge(from, to time.Time) (total float64, byComponent []amount) {
	byComponent = p.components[:0]
	p.eachLocalDay(from, to, func(a, b time.Time, d *localDay, day time.Duration) {
		share := float64(b.Sub(a)) / float64(day)
		for _, c := range d.daily {
			byComponent = addAmount(byComponent, c.name, c.value*share)
		}
	})
	p.components = byComponent
	for _, c := range byComponent {
		total += c.value
	}
	return total, byComponent
}

func daysInYear(y int) int {
	return time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
}
