package query

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"energy/schema"
)

// Nature families of index readings, in priority order (decisions §4): distributor >
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

// familyPriority is the SQL expression giving a row's family index (its priority, 0 first).
// Rows of other natures are excluded by the nature filter before it is used.
var familyPriority = func() string {
	var b strings.Builder
	b.WriteString("multiIf(")
	for i, f := range natureFamilies[:len(natureFamilies)-1] {
		fmt.Fprintf(&b, "nature IN ('%s', '%s%s'), %d, ", f.nature, f.nature, invalidSuffix, i)
	}
	fmt.Fprintf(&b, "%d)", len(natureFamilies)-1)
	return b.String()
}()

// recordRank orders the records of one family at one (pod, ts, indexBeforeChange): the latest
// generationTs wins, and on a tie the _INVALID record wins (an invalidation is never undone by
// a record of the same generation). It is even for a valid record, odd for an _INVALID one.
const recordRank = "(toUInt64(generation_ts) * 2 + endsWith(nature, '" + invalidSuffix + "'))"

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
}

func (r reading) estimated() bool { return r.priority == estimationPriority }

// resolvedReadingsSQL resolves the winning readings of the site with ts in [?, ?], in SQL, from
// the inside:
//
//  1. per (pod, ts, indexBeforeChange, family, dial): the latest record's rank and value;
//  2. per (pod, ts, indexBeforeChange, family): the latest record is the one of highest rank;
//     its dials are those of that rank; an _INVALID winner (odd rank) removes the family there;
//  3. per (pod, ts, indexBeforeChange): the family of highest priority wins;
//  4. one row per dial of the winning record.
//
// No FINAL (on 18.16 it costs several times the whole query) and no dependence on merges: a
// re-sent record is an identical row that the aggregation counts once. Only contradictory data
// (two rows of one identity, generationTs included, with different values) could tell merged
// from unmerged parts apart: unmerged, the higher value wins, deterministically.
var resolvedReadingsSQL = `
SELECT pod_id, dial, ts, ibc, best, value
FROM (
    SELECT pod_id, ts, ibc, min(prio) AS best, argMin(ds, prio) AS dials, argMin(vs, prio) AS vals
    FROM (
        SELECT pod_id, ts, ibc, prio, max(k) AS fk,
               arrayFilter((d, kk) -> kk = fk, groupArray(dial), groupArray(k)) AS ds,
               arrayFilter((v, kk) -> kk = fk, groupArray(v), groupArray(k)) AS vs
        FROM (
            SELECT pod_id, ts, index_before_change AS ibc, ` + familyPriority + ` AS prio, dial,
                   max(` + recordRank + `) AS k, argMax(value, (` + recordRank + `, value)) AS v
            FROM elec_indexes
            WHERE tenant_id = ? AND site_id = ? AND has(?, nature) AND ts >= ? AND ts <= ?
            GROUP BY pod_id, ts, ibc, prio, dial
        )
        GROUP BY pod_id, ts, ibc, prio
        HAVING fk % 2 = 0
    )
    GROUP BY pod_id, ts, ibc
)
ARRAY JOIN dials AS dial, vals AS value`

// readingWindow is how far around the fetched range the first query looks for the readings that
// bracket it (the index at the period's start and end is interpolated between them): enough for
// daily and monthly readings. Sparser readings are found by the bracket query, up to
// readingLookaround away.
const (
	readingWindow     = 35 * 24 * time.Hour
	readingLookaround = 400 * 24 * time.Hour
)

// resolveReadings returns the winning readings of the site's dials of the allowed natures in
// [from, to] and, for each series (pod, dial), the nearest one before from and after to when
// bracket is set; sorted by pod, dial, ts, the old meter's index first at a meter change.
//
// One query reads [from − 35 days, to + 35 days]; a second one runs only when a series (or the
// whole site) has no reading in one of the margins, and fetches the nearest reading within
// 400 days on that side (never after now: readings are not dated in the future).
func resolveReadings(ctx context.Context, db *schema.DB, tenantID, siteID string, natures []string, from, to time.Time, bracket bool, now time.Time) ([]reading, error) {
	from, to = from.UTC(), to.UTC()
	out, err := queryReadings(ctx, db, resolvedReadingsSQL, tenantID, siteID, natures, from.Add(-readingWindow), to.Add(readingWindow))
	if err != nil {
		return nil, err
	}
	sortReadings(out)
	if !bracket {
		return out, nil
	}
	before, after := missingBrackets(out, from, to)
	after = after && to.Add(readingWindow).Before(now) // the window already reaches the present
	if !before && !after {
		return out, nil
	}
	var parts []string
	var args []any
	if before { // the last reading of each series in [from − 400 days, from − 35 days)
		parts = append(parts, `SELECT * FROM (`+resolvedReadingsSQL+` ORDER BY pod_id, dial, ts DESC, ibc ASC LIMIT 1 BY pod_id, dial)`)
		args = append(args, tenantID, siteID, natures, from.Add(-readingLookaround), from.Add(-readingWindow-time.Second))
	}
	if after { // the first reading of each series in (to + 35 days, to + 400 days]
		parts = append(parts, `SELECT * FROM (`+resolvedReadingsSQL+` ORDER BY pod_id, dial, ts ASC, ibc DESC LIMIT 1 BY pod_id, dial)`)
		args = append(args, tenantID, siteID, natures, to.Add(readingWindow+time.Second), to.Add(readingLookaround))
	}
	more, err := queryReadings(ctx, db, strings.Join(parts, "\nUNION ALL\n"), args...)
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	sortReadings(out)
	return out, nil
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

func queryReadings(ctx context.Context, db *schema.DB, sql string, args ...any) ([]reading, error) {
	rows, err := db.Conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("resolve index readings: %w", err)
	}
	defer rows.Close()
	var out []reading
	for rows.Next() {
		var (
			r   reading
			ibc uint8
			pr  uint8
		)
		if err := rows.Scan(&r.pod, &r.dial, &r.ts, &ibc, &pr, &r.value); err != nil {
			return nil, fmt.Errorf("resolve index readings: %w", err)
		}
		r.beforeChange, r.priority = ibc == 1, int(pr)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resolve index readings: %w", err)
	}
	return out, nil
}

// sortReadings orders readings by pod, dial and ts, the old meter's index first at a meter change.
func sortReadings(rs []reading) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.pod != b.pod {
			return a.pod < b.pod
		}
		if a.dial != b.dial {
			return a.dial < b.dial
		}
		if !a.ts.Equal(b.ts) {
			return a.ts.Before(b.ts)
		}
		return a.beforeChange && !b.beforeChange
	})
}
