package query

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
}

func newPricing(t *registry.Tariff, loc *time.Location) *pricing {
	p := &pricing{loc: loc, prices: append([]registry.PricePeriod(nil), t.Prices...),
		standing: append([]registry.StandingChargePeriod(nil), t.StandingCharges...)}
	sort.SliceStable(p.prices, func(i, j int) bool { return p.prices[i].ValidFrom < p.prices[j].ValidFrom })
	sort.SliceStable(p.standing, func(i, j int) bool { return p.standing[i].ValidFrom < p.standing[j].ValidFrom })
	return p
}

// priceOn is the EUR/kWh of heading on a local date (yyyy-MM-dd).
func (p *pricing) priceOn(date, heading string) (float64, bool) {
	i := sort.Search(len(p.prices), func(i int) bool { return p.prices[i].ValidFrom > date }) - 1
	if i < 0 {
		return 0, false
	}
	v, ok := p.prices[i].ByHeading[heading]
	return v, ok
}

// standingOn is the yearly standing charge by component in force on a local date.
func (p *pricing) standingOn(date string) map[string]float64 {
	i := sort.Search(len(p.standing), func(i int) bool { return p.standing[i].ValidFrom > date }) - 1
	if i < 0 {
		return nil
	}
	return p.standing[i].Yearly
}

// energyCost is the EUR of the pieces by heading: each piece's energy is spread evenly over its
// time span (the linear interpolation of the index at local midnights) and each local day's share
// is priced at that day's price, so a price change inside a step applies day by day. Headings
// without a price are left out.
func (p *pricing) energyCost(ps []piece) map[string]float64 {
	out := map[string]float64{}
	for _, pc := range ps {
		length := pc.end.Sub(pc.start)
		forEachLocalDay(pc.start, pc.end, p.loc, func(a, b time.Time, date string, _ time.Duration) {
			price, ok := p.priceOn(date, pc.heading)
			if !ok {
				return
			}
			wh := pc.wh
			if !a.Equal(pc.start) || !b.Equal(pc.end) {
				wh = pc.wh * float64(b.Sub(a)) / float64(length)
			}
			out[pc.heading] += wh / 1000 * price
		})
	}
	return out
}

// standingCharge is the standing charge of [from, to) by component: each local day carries the
// yearly amount ÷ the days of its calendar year (365 or 366), a partial day its covered share
// (of a 23-, 24- or 25-hour day).
func (p *pricing) standingCharge(from, to time.Time) (total float64, byComponent map[string]float64) {
	byComponent = map[string]float64{}
	forEachLocalDay(from, to, p.loc, func(a, b time.Time, date string, day time.Duration) {
		yearly := p.standingOn(date)
		if yearly == nil {
			return
		}
		share := float64(b.Sub(a)) / float64(day)
		days := float64(daysInYear(a.In(p.loc).Year()))
		for c, v := range yearly {
			byComponent[c] += v / days * share
		}
	})
	for _, v := range byComponent {
		total += v
	}
	return total, byComponent
}

func daysInYear(y int) int {
	return time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
}

// forEachLocalDay calls fn for each part of [from, to) inside one local day, with the day's date
// (yyyy-MM-dd) and length.
func forEachLocalDay(from, to time.Time, loc *time.Location, fn func(a, b time.Time, date string, day time.Duration)) {
	for cur := from; cur.Before(to); {
		y, m, d := cur.In(loc).Date()
		start := WallClock(y, m, d, 0, 0, 0, 0, loc)
		end := WallClock(y, m, d+1, 0, 0, 0, 0, loc)
		if !end.After(cur) { // never loop on a zone that misbehaves
			end = to
		}
		b := minTime(end, to)
		fn(cur, b, time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), end.Sub(start))
		cur = b
	}
}
