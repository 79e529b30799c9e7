package consumption

import (
	"sort"
	"time"

	"energy/schema/registry"
)

// noTariffHeading is the heading of load-curve energy when the site has no tariff, or a tariff
// that says neither a time-of-use schedule nor a default heading.
const noTariffHeading = "BASE"

// timeOfUse splits load-curve energy into tariff headings by local time of day: the first
// range of the tariff's timeOfUse that holds the instant's wall-clock time gives the heading;
// time not covered goes to the default heading. A range whose end is before its start crosses
// midnight. Day schedules are built once per local day.
type timeOfUse struct {
	loc      *time.Location
	ranges   []touRange
	fallback string
	cuts     []int // minutes of the day where the heading may change, 0 and 1440 included
	days     map[int]*daySchedule
	last     *daySchedule // the last day looked up
}

type touRange struct {
	from, to int // minutes of the day; to may be ≤ from (crosses midnight)
	heading  string
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

func newTimeOfUse(t *registry.Tariff, loc *time.Location) *timeOfUse {
	tou := &timeOfUse{loc: loc, fallback: noTariffHeading, days: map[int]*daySchedule{}}
	if t == nil {
		return tou
	}
	if t.DefaultHeading != "" {
		tou.fallback = t.DefaultHeading
	}
	cuts := map[int]bool{0: true, 1440: true}
	for _, r := range t.TimeOfUse {
		from, err1 := registry.ParseClock(r.From)
		to, err2 := registry.ParseClock(r.To)
		if err1 != nil || err2 != nil || from == to {
			continue // Validate refuses these
		}
		tou.ranges = append(tou.ranges, touRange{from % 1440, to % 1440, r.Heading})
		cuts[from%1440], cuts[to%1440] = true, true
	}
	for c := range cuts {
		tou.cuts = append(tou.cuts, c)
	}
	sort.Ints(tou.cuts)
	return tou
}

// headingAt is the heading of a wall-clock minute of the day.
func (t *timeOfUse) headingAt(minute int) string {
	for _, r := range t.ranges {
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
		h := t.headingAt(t.cuts[i])
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

// split calls fn for each part of [from, to) with one heading; parts never cross a local midnight.
func (t *timeOfUse) split(from, to time.Time, fn func(a, b time.Time, heading string)) {
	for cur := from; cur.Before(to); {
		s := t.day(cur)
		next := s.end
		heading := t.fallback
		for _, seg := range s.segments {
			if !cur.Before(seg.start) && cur.Before(seg.end) {
				next, heading = seg.end, seg.heading
				break
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
