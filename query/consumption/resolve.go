package consumption

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"energy/schema"
	"energy/schema/tables"
)

// Nature families of index readings, in priority order (apidocs/README.md, "Consumption"): distributor >
// DTN_CUSTOMER_ACK > MKT_CUSTOMER > MKT_ESTIMATION. Each nature has an _INVALID twin; the two
// form a family.
var natureFamilies = []struct {
	nature, category string
}{
	{"MKT_SMART_DISTRIBUTOR", "SMART_METER"},
	{"MKT_CYCLIC_DISTRIBUTOR", "LEGACY_METER"},
	{"DTN_CUSTOMER_ACK", "SELF_METER_READING"},
	{"MKT_CUSTOMER", "SELF_METER_READING"},
	{"MKT_ESTIMATION", "ESTIMATED"},
}

// estimationPriority is the family index of MKT_ESTIMATION, whose readings are estimated.
const estimationPriority = 4

const invalidSuffix = "_INVALID"

// allowedNatures lists the natures (with their _INVALID twins) of the allowed categories;
// no category means all.
func allowedNatures(categories []string) []string {
	allowed := map[string]bool{}
	for _, c := range categories {
		allowed[c] = true
	}
	var out []string
	for _, f := range natureFamilies {
		if len(categories) == 0 || allowed[f.category] {
			out = append(out, f.nature, f.nature+invalidSuffix)
		}
	}
	return out
}

// reading is one resolved index of one dial: the winning record at (pod, ts, indexBeforeChange).
type reading struct {
	pod, dial    string
	ts           time.Time
	beforeChange bool // the old meter's last index at a meter change
	priority     int  // family index in natureFamilies
	value        int64
	factor       float64 // Wh per index unit: electricity 1; gas 1,000 × its kWh factor (NaN when it has none)
	unit         string  // gas: the index unit; electricity: empty
}

func (r reading) estimated() bool { return r.priority == estimationPriority }

// candidateReadingsSQL reads the raw index records of the site with ts in [?, ?] and a nature in
// ?: every generation and nature, the columns the resolution needs. A site holds few of them (a
// year of daily readings × dials × natures), so the resolution is done in Go (resolveRecords),
// which costs a fraction of ClickHouse's nested aggregation of the same rows on 18.16.
//
// No FINAL (on 18.16 it costs several times the whole query) and no dependence on merges: a
// re-sent record is an identical row that the resolution counts once. Only contradictory data
// (two rows of one identity, generationTs included, with different values) could tell merged
// from unmerged parts apart: unmerged, the higher value wins, deterministically.
//
// The table is the argument: the site's reader names it (fluid.readingsOf).
func candidateReadingsSQL(table string) string {
	return "SELECT " +
		tables.List(tables.PodID, tables.Dial, tables.TS, tables.IndexBeforeChange, natureCodeSQL, tables.GenerationTS, tables.Value) +
		" FROM " + table + siteReadingsWhere
}

// natureCodes are the natures of every family, each followed by its _INVALID twin: a record's
// nature is read as its 1-based position in them (natureCodeSQL), an integer the scan decodes
// without reading a string per record. The list is the code's own constants, not input.
var natureCodes = allowedNatures(nil)

// natureCodeSQL selects a record's nature as its position in natureCodes (0: none of them,
// which the reads' nature condition leaves out).
var natureCodeSQL = func() string {
	quoted := make([]string, len(natureCodes))
	for i, n := range natureCodes {
		quoted[i] = "'" + n + "'"
	}
	return "indexOf([" + strings.Join(quoted, ", ") + "], " + tables.Nature + ") AS " + tables.Nature + "_code"
}()

// natureOfCode is the family (index in natureFamilies) and the invalidation of each code of
// natureCodeSQL; code 0 counts as family 0, valid, as an unknown nature always did.
var natureOfCode = func() []struct {
	family  int
	invalid bool
} {
	out := make([]struct {
		family  int
		invalid bool
	}, len(natureCodes)+1)
	for i, n := range natureCodes {
		out[i+1].family, out[i+1].invalid = familyOf[n], strings.HasSuffix(n, invalidSuffix)
	}
	return out
}()

// siteReadingsWhere keeps the site's index records (tenant ?, site ?) of a nature in ? with ts
// in [?, ?].
const siteReadingsWhere = " WHERE " + tables.TenantID + " = ? AND " + tables.SiteID + " = ? AND has(?, " + tables.Nature + ")" +
	" AND " + tables.TS + " >= ? AND " + tables.TS + " <= ?"

// record is one raw index record of one dial, as stored.
type record struct {
	pod, dial    string
	ts           time.Time
	beforeChange bool
	family       int    // index in natureFamilies
	rank         uint64 // generationTs × 2, + 1 for an _INVALID record: the latest wins, an invalidation wins a tie
	value        int64
	factor       float64 // as reading.factor
	unit         string  // as reading.unit
}

// familyOf gives the family index of each nature and of its _INVALID twin.
var familyOf = func() map[string]int {
	m := map[string]int{}
	for i, f := range natureFamilies {
		m[f.nature], m[f.nature+invalidSuffix] = i, i
	}
	return m
}()

// resolveRecords chooses the winning readings among raw records (apidocs/README.md, "Consumption"), at each
// (pod, ts, indexBeforeChange):
//
//  1. per family and dial: the record of highest rank (on a tie of rank, the higher value);
//  2. per family: the latest record is the one of highest rank; its dials are those of that
//     rank; an _INVALID winner (odd rank) removes the family there;
//  3. the family of highest priority left wins: one reading per dial of its latest record.
//
// It sorts recs in place.
func resolveRecords(recs []record) []reading {
	slices.SortFunc(recs, func(a, b record) int {
		if c := strings.Compare(a.pod, b.pod); c != 0 {
			return c
		}
		if c := a.ts.Compare(b.ts); c != 0 {
			return c
		}
		if a.beforeChange != b.beforeChange {
			if b.beforeChange {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.family, b.family); c != 0 {
			return c
		}
		if c := strings.Compare(a.dial, b.dial); c != 0 {
			return c
		}
		if c := cmp.Compare(b.rank, a.rank); c != 0 { // the latest first
			return c
		}
		return cmp.Compare(b.value, a.value) // the higher first
	})
	sameKey := func(a, b *record) bool {
		return a.pod == b.pod && a.ts.Equal(b.ts) && a.beforeChange == b.beforeChange
	}
	out := make([]reading, 0, len(recs)) // at most one reading per record
	for i := 0; i < len(recs); {
		j := i
		for j < len(recs) && sameKey(&recs[i], &recs[j]) {
			j++
		}
		// recs[i:j] is one (pod, ts, indexBeforeChange), by family, dial, then best record first.
		for f := i; f < j; {
			g := f
			var top uint64
			for g < j && recs[g].family == recs[f].family {
				top = max(top, recs[g].rank)
				g++
			}
			if top%2 == 0 { // the family's latest record is valid: it wins
				for d := f; d < g; d++ {
					r := &recs[d]
					if r.rank == top && (d == f || r.dial != recs[d-1].dial) {
						out = append(out, reading{pod: r.pod, dial: r.dial, ts: r.ts, beforeChange: r.beforeChange, priority: r.family, value: r.value, factor: r.factor, unit: r.unit})
					}
				}
				break
			}
			f = g
		}
		i = j
	}
	return out
}

// readingWindow is how far around the fetched range the readings that bracket it are looked for
// first (the index at the period's start and end is interpolated between them): enough for daily
// and monthly readings. Sparser readings are looked for up to readingLookaround away.
const (
	readingWindow     = 35 * 24 * time.Hour
	readingLookaround = 400 * 24 * time.Hour
)

// resolveReadings returns the winning readings of the site's dials (of the fluid whose candidate
// readings sql selects: candidateReadingsSQL or gasCandidateReadingsSQL) of the allowed natures in
// [from, to] and, for each series (pod, dial), the nearest one before from and after to when
// bracket is set; sorted by pod, dial, ts, the old meter's index first at a meter change.
//
// The first read covers [from − 35 days, to + 35 days]: with daily or monthly readings it holds
// the brackets, and the rows read stay proportional to the period whatever the site's history.
// Only when a series (or the whole site) has no reading in one of those margins does a second
// read look up to 400 days farther on that side, and the nearest reading found there is added to
// every series (never after now: readings are not dated in the future).
func resolveReadings(ctx context.Context, db *schema.DB, fl *fluid, tenantID, siteID string, natures []string, from, to time.Time, bracket bool, now time.Time) ([]reading, error) {
	span := newReadingSpan(from, to)
	site := db.ReadSite(tenantID, siteID)
	sql := fl.readingsOf(site)
	window, err := queryRecords(ctx, site, sql, tenantID, siteID, natures, span.lo, span.hi)
	if err != nil {
		return nil, err
	}
	out := resolveRecords(window)
	sortReadings(out)
	if !bracket {
		return out, nil
	}
	before, after, readLo, readHi := span.secondRead(out, now)
	if !before && !after {
		return out, nil
	}
	recs, err := queryRecords(ctx, site, sql, tenantID, siteID, natures, readLo, readHi)
	if err != nil {
		return nil, err
	}
	return span.withBrackets(out, recs, before, after), nil
}

// readingSpan is what one resolution reads: the period [from, to] and the first read's window
// [lo, hi] around it.
type readingSpan struct{ from, to, lo, hi time.Time }

func newReadingSpan(from, to time.Time) readingSpan {
	// Bounds are whole seconds, as DateTime columns and bound values are.
	from, to = from.UTC().Truncate(time.Second), to.UTC().Truncate(time.Second)
	return readingSpan{from: from, to: to, lo: from.Add(-readingWindow), hi: to.Add(readingWindow)}
}

// secondRead tells, from the window's resolved readings, which sides lack a bracket and the
// range of the read that looks for them.
func (s readingSpan) secondRead(out []reading, now time.Time) (before, after bool, readLo, readHi time.Time) {
	before, after = missingBrackets(out, s.from, s.to)
	after = after && s.hi.Before(now) // past the window's end only when it ends before now
	// The second read spans the missing sides only (both: one read across the window, whose rows
	// are left out by withBrackets).
	readLo, readHi = s.hi.Add(time.Second), s.to.Add(readingLookaround)
	if before {
		readLo = s.from.Add(-readingLookaround)
		if !after {
			readHi = s.lo.Add(-time.Second)
		}
	}
	return before, after, readLo, readHi
}

// withBrackets adds to the window's readings the nearest reading of each series that the second
// read (recs) found on the missing sides.
func (s readingSpan) withBrackets(out []reading, recs []record, before, after bool) []reading {
	lo, hi := s.lo, s.hi
	// The last reading of each series in [from − 400 days, from − 35 days), the first one in
	// (to + 35 days, to + 400 days].
	var margins []record
	for _, r := range recs {
		if (before && r.ts.Before(lo)) || (after && r.ts.After(hi)) {
			margins = append(margins, r)
		}
	}
	more := resolveRecords(margins)
	sortReadings(more)
	for i := 0; i < len(more); {
		j := i
		for j < len(more) && more[j].pod == more[i].pod && more[j].dial == more[i].dial {
			j++
		}
		// In a series' order (ts, the old meter's index first), the nearest reading before is
		// the last one of that side (the new meter's index at a meter change), the nearest one
		// after the first of its side (the old meter's index).
		k := i
		for k < j && more[k].ts.Before(lo) {
			k++
		}
		if k > i {
			out = append(out, more[k-1])
		}
		if k < j {
			out = append(out, more[k])
		}
		i = j
	}
	sortReadings(out)
	return out
}

// missingBrackets tells whether some series lacks a reading before from (after to) in what the
// window query returned; an empty answer lacks both (readings may lie farther away).
func missingBrackets(rs []reading, from, to time.Time) (before, after bool) {
	if len(rs) == 0 {
		return true, true
	}
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j].pod == rs[i].pod && rs[j].dial == rs[i].dial {
			j++
		}
		before = before || rs[i].ts.After(from)
		after = after || rs[j-1].ts.Before(to)
		i = j
	}
	return before, after
}

// queryRecords runs candidate readings SQL (its table named by the site's reader). No per-query
// settings: max_threads = 1 measured no faster (p50 7.7 vs 8.1 ms, 11.1 vs 11.3 ms, 400
// interleaved reads each on the shared machine): one site's range of the by-site table lies in
// one part and a few granules, which ClickHouse reads with one stream anyway.
func queryRecords(ctx context.Context, site schema.SiteReader, sql string, args ...any) ([]record, error) {
	var out []record
	err := scanRecords(ctx, site.Conn, sql, args, nil, func(r record) { out = append(out, r) })
	return out, err
}

// scanRecords runs candidate readings SQL and hands each record to add; the SQL selects first
// the columns of extra, if any (scanned into them before each add).
func scanRecords(ctx context.Context, conn driver.Conn, sql string, args []any, extra []any, add func(record)) error {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("resolve index readings: %w", err)
	}
	defer rows.Close()
	// Gas readings carry two more columns: their kWh conversion factor and their index unit.
	gas := len(rows.Columns())-len(extra) > 7
	// One set of destinations for every row: no allocation per record but its strings.
	var (
		r          record
		ibc        uint8
		nature     uint64
		generation int64 // Unix seconds
		factor     float64
		unit       string
	)
	dest := append(append([]any{}, extra...), &r.pod, &r.dial, &r.ts, &ibc, &nature, &generation, &r.value)
	if gas {
		dest = append(dest, &factor, &unit)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("resolve index readings: %w", err)
		}
		r.factor, r.unit = 1, ""
		if gas {
			r.factor, r.unit = factor*1000, unit // kWh → Wh per index unit
		}
		if nature >= uint64(len(natureOfCode)) {
			return fmt.Errorf("resolve index readings: nature code %d", nature)
		}
		n := natureOfCode[nature]
		r.beforeChange, r.family = ibc == 1, n.family
		r.rank = uint64(generation) * 2
		if n.invalid {
			r.rank++
		}
		add(r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve index readings: %w", err)
	}
	return nil
}

// sortReadings orders readings by pod, dial and ts, the old meter's index first at a meter change.
// Readings as resolveRecords returns them (by pod, then ts) are regrouped by dial in linear time;
// a full sort is left for any other order.
func sortReadings(rs []reading) {
	if slices.IsSortedFunc(rs, compareReadings) {
		return
	}
	if regroupByDial(rs); !slices.IsSortedFunc(rs, compareReadings) {
		slices.SortFunc(rs, compareReadings)
	}
}

func compareReadings(a, b reading) int {
	if c := strings.Compare(a.pod, b.pod); c != 0 {
		return c
	}
	if c := strings.Compare(a.dial, b.dial); c != 0 {
		return c
	}
	if c := a.ts.Compare(b.ts); c != 0 {
		return c
	}
	switch {
	case a.beforeChange == b.beforeChange:
		return 0
	case a.beforeChange:
		return -1
	}
	return 1
}

// regroupByDial moves, within each run of one pod, the readings of each dial together (dials
// in order, each keeping its readings' order), and puts the old meter's index first where a
// dial has two readings at one instant: readings ordered by pod then ts come out in
// sortReadings' order.
func regroupByDial(rs []reading) {
	var buf []reading
	var dials []string
	for i := 0; i < len(rs); {
		j := i
		dials = dials[:0]
		for j < len(rs) && rs[j].pod == rs[i].pod {
			if !slices.Contains(dials, rs[j].dial) {
				dials = append(dials, rs[j].dial)
			}
			j++
		}
		slices.Sort(dials)
		buf = buf[:0]
		for _, d := range dials {
			for k := i; k < j; k++ {
				if rs[k].dial == d {
					buf = append(buf, rs[k])
				}
			}
		}
		copy(rs[i:j], buf)
		for k := i + 1; k < j; k++ {
			if a, b := &rs[k-1], &rs[k]; a.dial == b.dial && a.ts.Equal(b.ts) && !a.beforeChange && b.beforeChange {
				*a, *b = *b, *a
			}
		}
		i = j
	}
}
