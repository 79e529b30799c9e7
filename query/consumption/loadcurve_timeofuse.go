package consumption

import (
	"context"
	"errors"
	"sort"
	"time"

	"energy/schema/registry"
)

// noTariffHeading is the heading of load-curve energy when the site has no tariff, or a tariff
// that says neither a time-of-use schedule nor a default heading.
const noTariffHeading = "BASE"

// missingColourHeading is the heading of load-curve energy inside a colour day that the
// tariff's calendar lacks: it counts in the energy's total but under no heading, and the step
// carries FlagMissingDayColour and no cost. A NUL character: no heading can be named so (JSON
// bodies refuse it).
const missingColourHeading = "\x00"

// timeOfUse splits load-curve energy into tariff headings by local time of day: the first
// range of the tariff's timeOfUse that holds the instant's wall-clock time (and, for a range
// with a dayColour, lies in a colour day of that colour) gives the heading; time not covered
// goes to the default heading. A range whose end is before its start crosses midnight. With a
// day-colour calendar, the part of a local date before the calendar's day start belongs to the
// previous date's colour day; a colour day the calendar lacks gets missingColourHeading. Day
// schedules are built once per local day.
type timeOfUse struct {
	loc      *time.Location
	ranges   []touRange
	fallback string
	colours  *registry.ColourDays // nil: the tariff has no day-colour calendar
	cuts     []int                // minutes of the day where the heading may change, 0 and 1440 included
	days     map[int]*daySchedule
	last     *daySchedule // the last day looked up
	lastSeg  touSegment   // the last segment split found an instant in (zero: none yet)
}

type touRange struct {
	from, to int // minutes of the day; to may be ≤ from (crosses midnight)
	heading  string
	colour   string // "" for every day
}

// daySchedule is one local day cut into segments of one heading each.
type daySchedule struct {
	start, end time.Time
	segments   []touSegment
}

type touSegment struct {
	start, end time.Time
	heading    string
}

// newTimeOfUse is the schedule of tariff t (nil: none) in loc; colours are the days of the
// tariff's day-colour calendar (nil when it names none).
func newTimeOfUse(t *registry.Tariff, loc *time.Location, colours *registry.ColourDays) *timeOfUse {
	tou := &timeOfUse{loc: loc, fallback: noTariffHeading, days: map[int]*daySchedule{}}
	if t == nil {
		return tou
	}
	if t.DefaultHeading != "" {
		tou.fallback = t.DefaultHeading
	}
	cuts := map[int]bool{0: true, 1440: true}
	if t.DayColourCalendarID != "" && colours != nil {
		tou.colours = colours
		cuts[colours.StartsAt] = true
	}
	for _, r := range t.TimeOfUse {
		from, err1 := registry.ParseClock(r.From)
		to, err2 := registry.ParseClock(r.To)
		if err1 != nil || err2 != nil || from == to {
			continue // Validate refuses these
		}
		tou.ranges = append(tou.ranges, touRange{from % 1440, to % 1440, r.Heading, r.DayColour})
		cuts[from%1440], cuts[to%1440] = true, true
	}
	for c := range cuts {
		tou.cuts = append(tou.cuts, c)
	}
	sort.Ints(tou.cuts)
	return tou
}

// headingAt is the heading of a wall-clock minute of the day inside a colour day of colour
// ("" without calendar).
func (t *timeOfUse) headingAt(minute int, colour string) string {
	for _, r := range t.ranges {
		if r.colour != "" && r.colour != colour {
			continue
		}
		if r.from < r.to && minute >= r.from && minute < r.to {
			return r.heading
		}
		if r.from > r.to && (minute >= r.from || minute < r.to) {
			return r.heading
		}
	}
	return t.fallback
}

// day returns the schedule of the local day holding instant.
func (t *timeOfUse) day(instant time.Time) *daySchedule {
	if l := t.last; l != nil && !instant.Before(l.start) && instant.Before(l.end) {
		return l // most lookups: the next point of the same day, no zone conversion
	}
	y, m, d := instant.In(t.loc).Date()
	key := y*10000 + int(m)*100 + d
	if s, ok := t.days[key]; ok {
		t.last = s
		return s
	}
	s := &daySchedule{start: WallClock(y, m, d, 0, 0, 0, 0, t.loc), end: WallClock(y, m, d+1, 0, 0, 0, 0, t.loc)}
	prev := s.start
	for i := 0; i+1 < len(t.cuts); i++ {
		end := WallClock(y, m, d, 0, t.cuts[i+1], 0, 0, t.loc)
		if end.After(s.end) || i+2 == len(t.cuts) {
			end = s.end
		}
		if !end.After(prev) { // a cut inside a DST gap: nothing to cover
			continue
		}
		h := t.headingAt(t.cuts[i], "")
		if t.colours != nil {
			h = t.colouredHeading(y, m, d, t.cuts[i])
		}
		if n := len(s.segments); n > 0 && s.segments[n-1].heading == h {
			s.segments[n-1].end = end
		} else {
			s.segments = append(s.segments, touSegment{prev, end, h})
		}
		prev = end
	}
	t.days[key] = s
	t.last = s
	return s
}

// colouredHeading is the heading of a wall-clock minute of local date y-m-d under the colour
// of the colour day holding it: the date's own from the day start on, the previous date's
// before.
func (t *timeOfUse) colouredHeading(y int, m time.Month, d, minute int) string {
	if minute < t.colours.StartsAt {
		prev := time.Date(y, m, d-1, 0, 0, 0, 0, time.UTC)
		y, m, d = prev.Date()
	}
	colour := t.colours.Colour(y, m, d)
	if colour == "" {
		return missingColourHeading
	}
	return t.headingAt(minute, colour)
}

// split calls fn for each part of [from, to) with one heading; parts never cross a local midnight.
func (t *timeOfUse) split(from, to time.Time, fn func(a, b time.Time, heading string)) {
	for cur := from; cur.Before(to); {
		var next time.Time
		var heading string
		if ls := &t.lastSeg; cur.Before(ls.end) && !cur.Before(ls.start) {
			// Most parts: the next point in the same segment as the previous one. A day's
			// segments are disjoint and inside the day, so the day's lookup would find it.
			next, heading = ls.end, ls.heading
		} else {
			s := t.day(cur)
			next, heading = s.end, t.fallback
			for _, seg := range s.segments {
				if !cur.Before(seg.start) && cur.Before(seg.end) {
					next, heading = seg.end, seg.heading
					t.lastSeg = seg
					break
				}
			}
		}
		if !next.After(cur) { // never loop: a zone whose day computation misbehaves
			next = to
		}
		end := minTime(next, to)
		fn(cur, end, heading)
		cur = end
	}
}

// colourDays reads the colour days of a calendar that can hold an instant of [from, to]: the
// local dates from the day before from's to to's. A calendar that no longer exists has no
// colour days (its energy is flagged, not priced).
func (c *Engine) colourDays(ctx context.Context, site registry.Site, calendarID string, from, to time.Time, loc *time.Location) (*registry.ColourDays, error) {
	first := from.In(loc).AddDate(0, 0, -1).Format(time.DateOnly)
	last := to.In(loc).AddDate(0, 0, 2).Format(time.DateOnly)
	days, err := c.reg.ColourDaysBetween(ctx, site.TenantID, calendarID, first, last)
	if errors.Is(err, registry.ErrNotFound) {
		return registry.NewColourDays(0, nil), nil
	}
	return days, err
}
