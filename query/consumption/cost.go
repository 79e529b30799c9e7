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
	standing   int                // index of the standing-charge period in force; -1 before the first
	daily      []amount           // by component (in name order), the yearly standing charge in force ÷ days of the day's calendar year; none before the first period; shared by days of the same period and year, never written
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

// standingIndex is the index of the standing-charge period in force on a local date; -1
// before the first.
func (p *pricing) standingIndex(date string) int {
	return sort.Search(len(p.standing), func(i int) bool { return p.standing[i].ValidFrom > date }) - 1
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
		start := p.followingMidnight(k)
		ld = p.newDay(k, start, WallClock(y, m, d+1, 0, 0, 0, 0, p.loc))
	}
	p.last = ld
	return ld
}

// knownDay notes the local day from midnight start to midnight end (the next one), for a
// caller that has them already: the daily path walks its days in order.
func (p *pricing) knownDay(start, end time.Time) *localDay {
	y, m, d := start.In(p.loc).Date()
	k := dayKey{y, m, d}
	ld, ok := p.days[k]
	if !ok {
		ld = p.newDay(k, start, end)
	}
	p.last = ld
	return ld
}

// followingMidnight is the local midnight that starts day k: the end of the last day looked
// up when k follows it (days are mostly walked in order), else worked out from the zone.
func (p *pricing) followingMidnight(k dayKey) time.Time {
	if l := p.last; l != nil && time.Date(l.key.y, l.key.m, l.key.d+1, 0, 0, 0, 0, time.UTC).Equal(time.Date(k.y, k.m, k.d, 0, 0, 0, 0, time.UTC)) {
		return l.end
	}
	return WallClock(k.y, k.m, k.d, 0, 0, 0, 0, p.loc)
}

// newDay works out and remembers day k's prices and standing charge, from midnight start to
// midnight end. Consecutive days mostly share their periods: a day in the same standing-charge
// period and calendar year as the last one shares its daily amounts.
func (p *pricing) newDay(k dayKey, start, end time.Time) *localDay {
	var date string
	if k.y >= 0 && k.y <= 9999 {
		var buf [10]byte
		date = string(appendDate(buf[:0], k))
	} else {
		date = time.Date(k.y, k.m, k.d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	ld := &localDay{key: k, start: start, end: end, prices: p.pricesOn(date), standing: p.standingIndex(date)}
	if l := p.last; l != nil && l.standing == ld.standing && l.key.y == k.y {
		ld.daily = l.daily
	} else if ld.standing >= 0 {
		days := float64(daysInYear(k.y))
		for c, v := range p.standing[ld.standing].Yearly {
			ld.daily = addAmount(ld.daily, c, v/days)
		}
	}
	p.days[k] = ld
	return ld
}

// appendDate appends k as yyyy-MM-dd, as the periods' ValidFrom are written.
func appendDate(b []byte, k dayKey) []byte {
	b = append(b, byte('0'+k.y/1000%10), byte('0'+k.y/100%10), byte('0'+k.y/10%10), byte('0'+k.y%10), '-')
	b = append(b, byte('0'+int(k.m)/10), byte('0'+int(k.m)%10), '-')
	return append(b, byte('0'+k.d/10), byte('0'+k.d%10))
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
		return addDayCost(out, d, pc.heading, pc.wh)
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

// addDayCost adds the EUR of wh of heading consumed inside local day d, at that day's price;
// a heading without a price adds nothing.
func addDayCost(out []amount, d *localDay, heading string, wh float64) []amount {
	if price, ok := d.prices[heading]; ok {
		out = addAmount(out, heading, wh/1000*price)
	}
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
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 366
	}
	return 365
}
