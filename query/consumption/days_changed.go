package consumption

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"energy/schema/registry"
	"energy/schema/tables"
)

// SiteChange is a site whose readings of a fluid changed (were stored, re-sent or
// invalidated) at instants in [First, Last].
type SiteChange struct {
	Site        registry.Site
	First, Last time.Time
}

// SiteDays are the days of a site that a change moves, answered.
type SiteDays struct {
	Site registry.Site
	Days []DayAnswer
}

// ChangedDays answers, for each change of one tenant's sites, every local day the change can
// move (ChangedSpan's span) as Days would, reading the readings of all the sites at once: one
// read of the window around all the changes, one more for the sites whose series lack a reading
// on a side (as each site's own read looks farther for them), then each site resolved and its
// days evaluated in Go. A site whose span of days reaches past its window (its nearest reading
// lies farther than the window's margin, so another series' readings there were not read) is
// answered by ChangedSpan and Days on its own; so is a gas site whose readings do not give
// every day one volume unit (oneUnitEachDay).
func (c *Engine) ChangedDays(ctx context.Context, tenantID, fluid string, changes []SiteChange) ([]SiteDays, error) {
	fl, err := fluidIn(c.fluids, fluid)
	if err != nil {
		return nil, err
	}
	alone := func(ch SiteChange) (SiteDays, error) {
		sd := SiteDays{Site: ch.Site}
		from, to, err := c.ChangedSpan(ctx, ch.Site, fluid, ch.First, ch.Last)
		if err != nil {
			return sd, err
		}
		for from.Before(to) || from.Equal(to) {
			days, err := c.Days(ctx, ch.Site, fluid, from, to)
			if err != nil {
				return sd, err
			}
			if len(days) == 0 {
				break
			}
			sd.Days = append(sd.Days, days...)
			last := days[len(days)-1].Day
			from = time.Date(last.Year(), last.Month(), last.Day()+1, 0, 0, 0, 0, last.Location())
		}
		return sd, nil
	}
	out := make([]SiteDays, len(changes))
	if len(changes) == 1 {
		for i, ch := range changes {
			if out[i], err = alone(ch); err != nil {
				return nil, err
			}
		}
		return out, nil
	}

	spans := make([]readingSpan, len(changes))
	ids := make([]string, len(changes))
	lo, hi := time.Time{}, time.Time{}
	for i, ch := range changes {
		spans[i] = newReadingSpan(ch.First.Add(-time.Second), ch.Last.Add(time.Second)) // as ChangedSpan reads
		ids[i] = ch.Site.SiteID
		if i == 0 || spans[i].lo.Before(lo) {
			lo = spans[i].lo
		}
		if i == 0 || spans[i].hi.After(hi) {
			hi = spans[i].hi
		}
	}
	sql := sitesReadingsSQL(fl)
	natures := allowedNatures(nil)
	window, err := recordsBySite(ctx, c, sql, tenantID, ids, natures, lo, hi)
	if err != nil {
		return nil, err
	}
	resolved := make([][]reading, len(changes))
	type second struct {
		before, after  bool
		readLo, readHi time.Time
	}
	seconds := make([]second, len(changes))
	now := c.now()
	// Each site is resolved on its own, the sites in parallel: the work is the CPU's.
	forEachSite(len(changes), func(i int) {
		recs := inSpan(window[changes[i].Site.SiteID], spans[i]) // this site's own window, as its own read has it
		resolved[i] = resolveRecords(recs)
		sortReadings(resolved[i])
		s := &seconds[i]
		s.before, s.after, s.readLo, s.readHi = spans[i].secondRead(resolved[i], now)
	})
	var needy []string
	var readLo, readHi time.Time
	for i, ch := range changes {
		if s := seconds[i]; s.before || s.after {
			if len(needy) == 0 || s.readLo.Before(readLo) {
				readLo = s.readLo
			}
			if len(needy) == 0 || s.readHi.After(readHi) {
				readHi = s.readHi
			}
			needy = append(needy, ch.Site.SiteID)
		}
	}
	if len(needy) > 0 {
		// The first read's window is left out: its records are at hand. As PREWHERE, ClickHouse
		// reads the ts column alone to drop them, not every column of the sites' rows (a job that
		// wrote a site's whole history reads nothing here, at a third of the cost).
		more, err := recordsBySite(ctx, c, outsideWindowSQL(sql), tenantID, needy, natures, readLo, readHi, lo, hi)
		if err != nil {
			return nil, err
		}
		forEachSite(len(changes), func(i int) {
			s, sp := seconds[i], spans[i]
			if !s.before && !s.after {
				return
			}
			// This site's own second read: its range, from both reads, less its own window
			// (withBrackets keeps only what lies outside it).
			var recs []record
			for _, part := range [][]record{window[changes[i].Site.SiteID], more[changes[i].Site.SiteID]} {
				for _, r := range part {
					if !r.ts.Before(s.readLo) && !r.ts.After(s.readHi) && (r.ts.Before(sp.lo) || r.ts.After(sp.hi)) {
						recs = append(recs, r)
					}
				}
			}
			resolved[i] = sp.withBrackets(resolved[i], recs, s.before, s.after)
		})
	}

	errs := make([]error, len(changes))
	forEachSite(len(changes), func(i int) {
		ch := changes[i]
		from, to := changedSpan(resolved[i], ch.First, ch.Last)
		// The days' bounds, not only the readings', must lie in the window: a series' nearest
		// reading to a midnight outside it was not read.
		loc := ch.Site.Location()
		y, m, d := from.In(loc).Date()
		firstMidnight := time.Date(y, m, d, 0, 0, 0, 0, loc)
		y, m, d = to.In(loc).Date()
		lastMidnight := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
		if firstMidnight.Before(spans[i].lo) || lastMidnight.After(spans[i].hi) {
			out[i], errs[i] = alone(ch)
			return
		}
		days, ok, err := c.daysFrom(ctx, ch.Site, fluid, from, to, resolved[i])
		if err == nil && !ok {
			out[i], errs[i] = alone(ch)
			return
		}
		out[i], errs[i] = SiteDays{Site: ch.Site, Days: days}, err
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// forEachSite runs f(0) … f(n−1), as many at once as Go has processors but one: like ingest's
// decoding, this runs while archives are ingested, and a processor left free keeps the
// requests' goroutines from waiting for a time slice behind it.
func forEachSite(n int, f func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, max(1, runtime.GOMAXPROCS(0)-1)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	wg.Wait()
}

// inSpan returns the records of recs in the span's window: recs itself when all are (a job's
// sites often share one window), else a copy.
func inSpan(recs []record, s readingSpan) []record {
	in := func(r *record) bool { return !r.ts.Before(s.lo) && !r.ts.After(s.hi) }
	n := 0
	for k := range recs {
		if in(&recs[k]) {
			n++
		}
	}
	if n == len(recs) {
		return recs
	}
	out := make([]record, 0, n)
	for k := range recs {
		if in(&recs[k]) {
			out = append(out, recs[k])
		}
	}
	return out
}

// daysFrom answers the site's local days from the day holding from to the day holding to, as
// Days does, on readings already resolved over a window that holds, for each series, the
// readings of those days and the nearest ones around them; not ok when gas days cannot share
// them (oneUnitEachDay).
func (c *Engine) daysFrom(ctx context.Context, site registry.Site, fluid string, from, to time.Time, readings []reading) (_ []DayAnswer, ok bool, _ error) {
	plans, err := c.dayPlans(site, fluid, from, to, 0)
	if err != nil || len(plans) == 0 {
		return nil, true, err
	}
	if plans[0].fl.volume && !oneUnitEachDay(plans, readings) {
		return nil, false, nil
	}
	d := &fetched{readings: readings}
	if id := plans[0].tariffID; id != "" {
		t, err := c.reg.Directory.Tariff(ctx, site.TenantID, id)
		if err == nil {
			d.tariff = &t
		} else if err != registry.ErrNotFound {
			return nil, true, err
		}
	}
	return c.answerDays(site, plans, d), true, nil
}

// sitesReadingsSQL is the fluid's candidate readings SQL over several sites of a tenant (the
// sharded by-site table: on a cluster its Distributed table reads every shard), with the site
// first, as its 1-based position in the sites ? (an integer, not a string per record): sites ?,
// tenant ?, sites in the set ? (clickhouse.GroupSet), natures in ?, ts in [?, ?].
func sitesReadingsSQL(fl *fluid) string {
	sql := fl.readingsSQL(fl.table)
	// IN with a set, not has(): ClickHouse reads only the sites' ranges of the table's key.
	sql = strings.Replace(sql, siteReadingsWhere, " WHERE "+tables.TenantID+" = ? AND "+tables.SiteID+" IN ? AND has(?, "+tables.Nature+")"+
		" AND "+tables.TS+" >= ? AND "+tables.TS+" <= ?", 1)
	return strings.Replace(sql, "SELECT ", "SELECT indexOf(?, "+tables.SiteID+"), ", 1)
}

// outsideWindowSQL is sitesReadingsSQL of records outside a window: ts < ? or ts > ?, bound
// after the others (recordsBySite's outside).
func outsideWindowSQL(sql string) string {
	return strings.Replace(sql, " WHERE ", " PREWHERE "+tables.TS+" < ? OR "+tables.TS+" > ? WHERE ", 1)
}

// recordsBySite runs sitesReadingsSQL (outsideWindowSQL with the window's bounds in outside)
// and returns the records of each site.
func recordsBySite(ctx context.Context, c *Engine, sql, tenantID string, siteIDs, natures []string, from, to time.Time, outside ...any) (map[string][]record, error) {
	bySite := make([]recordChunks, len(siteIDs))
	var site uint64
	set := make([]any, len(siteIDs))
	for i, id := range siteIDs {
		set[i] = id
	}
	bad := false
	args := append(append([]any{siteIDs}, outside...), tenantID, clickhouse.GroupSet{Value: set}, natures, from, to)
	err := scanRecords(ctx, c.db.Conn, sql, args, []any{&site},
		func(r record) {
			if site == 0 || site > uint64(len(siteIDs)) {
				bad = true
				return
			}
			bySite[site-1].add(r)
		})
	if err == nil && bad {
		err = errors.New("resolve index readings: a record of a site not asked for")
	}
	total := 0
	for i := range bySite {
		total += bySite[i].n
	}
	// One array for all the sites' records, each site's a slice of it (capped, so that nothing
	// appended to one site's reaches the next).
	all := make([]record, 0, total)
	out := make(map[string][]record, len(siteIDs))
	for i, id := range siteIDs {
		if bySite[i].n > 0 { // a site named twice has its records at its first position
			start := len(all)
			for _, ch := range bySite[i].chunks {
				all = append(all, ch...)
			}
			out[id] = all[start:len(all):len(all)]
		}
	}
	return out, err
}

// recordChunks collects records in chunks of growing size (64 up to 4,096 records) instead of
// one slice grown by copies: a read of 100,000 records allocated four times their size so.
type recordChunks struct {
	chunks [][]record
	n      int
}

func (c *recordChunks) add(r record) {
	last := len(c.chunks) - 1
	if last < 0 || len(c.chunks[last]) == cap(c.chunks[last]) {
		size := 64
		if last >= 0 {
			size = min(2*cap(c.chunks[last]), 4096)
		}
		c.chunks = append(c.chunks, make([]record, 0, size))
		last++
	}
	c.chunks[last] = append(c.chunks[last], r)
	c.n++
}
