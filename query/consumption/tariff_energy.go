package consumption

import (
	"context"
	"time"

	"energy/schema/registry"
)

// Pricing one period of a site's energy under several tariffs (tariff simulations): the data are
// read once, then split and priced under each tariff by the rules of the consumption answers
// (index intervals spread over the period, load-curve points split by each tariff's time of use
// and day colours, prices day by day, standing charge prorated by day). Sums stay unrounded:
// the caller rounds once, at the end.

// PricedEnergy is a period's energy and its cost under one tariff, unrounded.
type PricedEnergy struct {
	Wh             float64            // the whole energy, including energy under no heading
	ByHeading      map[string]float64 // Wh by heading; every heading of the tariff is listed
	CostByHeading  map[string]float64 // EUR of energy by heading (headings priced that day)
	EnergyCost     float64            // EUR, the sum of CostByHeading
	StandingCharge float64            // EUR over the period
	// MissingColour is the first colour day (yyyy-MM-dd) that the tariff's calendar lacks and
	// that holds load-curve energy; "" when none.
	MissingColour string
}

// priced turns the sums of a period under tariff t (priced by p) into a PricedEnergy.
func priced(t *registry.Tariff, p *pricing, s *stepSums, start, end time.Time) PricedEnergy {
	out := PricedEnergy{ByHeading: map[string]float64{}, CostByHeading: map[string]float64{}}
	for _, h := range t.Headings() {
		out.ByHeading[h] = 0
	}
	for _, a := range s.byHeading {
		out.ByHeading[a.name] += a.value
		out.Wh += a.value
	}
	out.Wh += float64(s.uncoloured) / 3600
	for _, a := range s.costs {
		out.CostByHeading[a.name] += a.value
		out.EnergyCost += a.value
	}
	out.StandingCharge, _ = p.standingCharge(start, end)
	return out
}

// IndexEnergy is a site's index readings over one period, read once: the energy of each meter
// dial and, through Under, the period's energy and cost under a tariff mapping those dials.
type IndexEnergy struct {
	// Item is the period's consumption item without tariff (byTariffHeading by dial number),
	// computed as the consumption answer computes one whole-period step.
	Item  Consumption
	plan  *plan
	ev    *evaluation
	whole Step
}

// ReadIndexEnergy reads the site's electricity index readings around [start, end) (default
// strategy and categories, no load curve).
func (c *Engine) ReadIndexEnergy(ctx context.Context, site registry.Site, start, end time.Time) (*IndexEnergy, error) {
	site.TariffID = "" // dials, not headings: each tariff maps them in Under
	p, err := c.plan(site, Request{Start: start, End: end, StepValue: 1, WithoutCost: true})
	if err != nil {
		return nil, err
	}
	p.loadCurveSteps, p.completion = false, false
	d, err := c.fetch(ctx, site, p, p.start, p.fetchEnd)
	if err != nil {
		return nil, err
	}
	res := p.evaluate(d)
	ev := &evaluation{start: p.start, end: p.end, series: buildIndexSeries(d.readings, p.strategy, p.start, p.end),
		canInterpolate: interpolationFor(p.strategy, p.start, p.end)}
	return &IndexEnergy{Item: res.Consumptions[0], plan: p, ev: ev, whole: Step{p.start, p.end}}, nil
}

// Under is the period's energy and cost under tariff t: each dial's energy under t's heading
// for it (t's dialHeadings, else its default heading).
func (e *IndexEnergy) Under(t *registry.Tariff) PricedEnergy {
	pieces := indexPieces(e.ev.series.intervals, []Step{e.whole}, e.ev.canInterpolate, dialHeading(t))[0]
	b := &itemBuilder{loc: e.plan.loc, tariff: t, pricing: newPricing(t, e.plan.loc), perWh: 1}
	s := b.sum(pieces)
	return priced(t, b.pricing, &s, e.whole.Start, e.whole.End)
}

// LoadCurveUnder is the load-curve energy of the site over [start, end) and its cost under each
// tariff, in one pass over the points: each point's part inside the period is split by every
// tariff's time of use (and day colours) and priced at that day's price, as the consumption
// answers' load-curve steps are. quality is the percentage of the period covered by real
// points (reliability 0), covered the part covered by any point.
func (c *Engine) LoadCurveUnder(ctx context.Context, site registry.Site, start, end time.Time, tariffs []*registry.Tariff) (out []PricedEnergy, quality, covered float64, err error) {
	loc := site.Location()
	start, end = start.In(loc), end.In(loc)
	points, err := resolveLoadCurve(ctx, c.db, site.TenantID, site.SiteID, start, end)
	if err != nil {
		return nil, 0, 0, err
	}
	colours := make([]*registry.ColourDays, len(tariffs))
	calendars := map[string]*registry.ColourDays{}
	for i, t := range tariffs {
		if id := t.DayColourCalendarID; id != "" {
			if calendars[id] == nil {
				if calendars[id], err = c.colourDays(ctx, site, id, start, end, loc); err != nil {
					return nil, 0, 0, err
				}
			}
			colours[i] = calendars[id]
		}
	}
	out, quality, covered = priceLoadCurve(points, start, end, loc, tariffs, colours)
	return out, quality, covered, nil
}

// priceLoadCurve is LoadCurveUnder's pass over the points (sorted by pod and begin), colours[i]
// being the colour days of tariffs[i] (nil without calendar).
func priceLoadCurve(points []loadCurvePoint, start, end time.Time, loc *time.Location, tariffs []*registry.Tariff, colours []*registry.ColourDays) (out []PricedEnergy, quality, covered float64) {
	cands := make([]curveCandidate, len(tariffs))
	for i, t := range tariffs {
		cands[i] = curveCandidate{t: t, tou: newTimeOfUse(t, loc, colours[i]), b: &itemBuilder{loc: loc, tariff: t, pricing: newPricing(t, loc), perWh: 1}}
	}
	spans, realSpans := make([]timeSpan, 0, len(points)), make([]timeSpan, 0, len(points))
	for _, p := range points {
		from, to := maxTime(p.begin, start), minTime(p.end, end)
		if !to.After(from) {
			continue
		}
		spans = append(spans, timeSpan{from, to})
		if !p.unreliable {
			realSpans = append(realSpans, timeSpan{from, to})
		}
		fromU, toU := from.Unix(), to.Unix()
		ws := wattSeconds(p.watts, to.Sub(from))
		for i := range cands {
			cd := &cands[i]
			if fromU < cd.seg.from || fromU >= cd.seg.to { // the segment holding the point's start
				cd.flush()
				cd.seg = cd.tou.segmentAt(from)
				cd.day = cd.b.pricing.day(from)
			}
			if toU <= cd.seg.to && from.Sub(to)%time.Second == 0 { // most points: inside one heading's segment
				if cd.seg.heading == missingColourHeading && cd.missing.IsZero() {
					cd.missing = from
				}
				cd.ws += ws // priced once per segment: W·s add up exactly
				continue
			}
			cd.flush()
			cd.tou.split(from, to, func(a, b time.Time, heading string) {
				if heading == missingColourHeading && cd.missing.IsZero() {
					cd.missing = a
				}
				cd.b.addCurvePiece(&cd.s, heading, cd.b.pricing.day(a), wattSeconds(p.watts, b.Sub(a)))
			})
		}
	}
	period := end.Sub(start)
	quality = roundTo(100*float64(unionLength(realSpans))/float64(period), qualityDecimals)
	covered = roundTo(100*float64(unionLength(spans))/float64(period), qualityDecimals)
	out = make([]PricedEnergy, len(cands))
	for i := range cands {
		cd := &cands[i]
		cd.flush()
		addCurveEnergy(&cd.s)
		out[i] = priced(cd.t, cd.b.pricing, &cd.s, start, end)
		if !cd.missing.IsZero() {
			out[i].MissingColour = cd.tou.colourDate(cd.missing)
		}
	}
	return out, quality, covered
}

// colourDate is the date (yyyy-MM-dd) of the colour day holding instant: its local date, or
// the date before when the instant is before the calendar's day start.
func (t *timeOfUse) colourDate(instant time.Time) string {
	l := instant.In(t.loc)
	y, m, d := l.Date()
	if t.colours != nil && l.Hour()*60+l.Minute() < t.colours.StartsAt {
		d--
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// curveCandidate is one tariff's sums in the pass over the points.
type curveCandidate struct {
	t       *registry.Tariff
	tou     *timeOfUse
	b       *itemBuilder
	s       stepSums
	missing time.Time   // the first instant in a colour day the calendar lacks
	seg     unixSegment // the last segment looked up
	day     *localDay   // its local day
	ws      int64       // W·s of the points inside seg not yet added
}

// flush adds the W·s gathered inside the current segment, priced at its day's price.
func (c *curveCandidate) flush() {
	if c.ws != 0 {
		c.b.addCurvePiece(&c.s, c.seg.heading, c.day, c.ws)
		c.ws = 0
	}
}

// unixSegment is a part of a local day under one heading, [from, to) in Unix seconds.
type unixSegment struct {
	from, to int64
	heading  string
}

// segmentAt is the segment of the day schedule holding instant (never crossing a local
// midnight); an instant the schedule does not cover gets the fallback heading up to the next
// segment or the day's end.
func (t *timeOfUse) segmentAt(instant time.Time) unixSegment {
	d := t.day(instant)
	end := d.end
	for _, seg := range d.segments {
		if !instant.Before(seg.start) && instant.Before(seg.end) {
			return unixSegment{seg.start.Unix(), seg.end.Unix(), seg.heading}
		}
		if seg.start.After(instant) && seg.start.Before(end) {
			end = seg.start
		}
	}
	return unixSegment{instant.Unix(), end.Unix(), t.fallback}
}
