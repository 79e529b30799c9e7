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

// readingLookaround bounds how far before the period start (and after its end) the engine looks
// for the readings that bracket it: the interpolation at the period's ends uses them.
const readingLookaround = 400 * 24 * time.Hour

// resolvedReadingsSQL resolves the winning readings of the site in one query. From the inside:
//
//  1. per (pod, ts, indexBeforeChange, family, dial): the latest record's rank and value;
//  2. per (pod, ts, indexBeforeChange, family): the latest record is the one of highest rank;
//     its dials are those of that rank; an _INVALID winner (odd rank) removes the family there;
//  3. per (pod, ts, indexBeforeChange): the family of highest priority wins;
//  4. one row per dial of the winning record.
//
// The range is [lo, hi]: lo is the last instant before the period start holding a valid reading
// of every pod (so the start can be interpolated), hi the first at or after the end; both are
// scalar subqueries over a bounded look-around, so the whole answer is one round trip.
// FINAL makes a re-sent record count once whatever the merges; argMax does the rest.
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
                   max(` + recordRank + `) AS k, argMax(value, ` + recordRank + `) AS v
            FROM elec_indexes FINAL
            WHERE tenant_id = ? AND site_id = ? AND has(?, nature)
              AND ts >= if(toUInt32((` + boundSQL("max", "min", "ts < ? AND ts >= ?") + `) AS lo) = 0, ?, lo)
              AND ts <= if(toUInt32((` + boundSQL("min", "max", "ts >= ? AND ts < ?") + `) AS hi) = 0, ?, hi)
            GROUP BY pod_id, ts, ibc, prio, dial
        )
        GROUP BY pod_id, ts, ibc, prio
        HAVING fk % 2 = 0
    )
    GROUP BY pod_id, ts, ibc
)
ARRAY JOIN dials AS dial, vals AS value
ORDER BY pod_id, dial, ts, ibc DESC`

// boundSQL is a scalar subquery over the site's valid readings in a time range (cond): per pod
// the perPod (max or min) ts, then across pods the acrossPods one, 0 when there is none. A
// (pod, ts, family) counts when its latest record is not an _INVALID one.
func boundSQL(perPod, acrossPods, cond string) string {
	return `SELECT ` + acrossPods + `(t) FROM (SELECT pod_id, ` + perPod + `(ts) AS t FROM (
                SELECT pod_id, ts, max(` + recordRank + `) AS k FROM elec_indexes FINAL
                WHERE tenant_id = ? AND site_id = ? AND has(?, nature) AND ` + cond + `
                GROUP BY pod_id, ts, index_before_change, ` + familyPriority + ` HAVING k % 2 = 0)
              GROUP BY pod_id)`
}

// resolveReadings returns the winning readings of the site's dials of the allowed natures in
// [from, to], plus the nearest ones around (see resolvedReadingsSQL), sorted by pod, dial, ts,
// the old meter's index first at a meter change.
func resolveReadings(ctx context.Context, db *schema.DB, tenantID, siteID string, natures []string, from, to time.Time) ([]reading, error) {
	from, to = from.UTC(), to.UTC()
	args := []any{
		tenantID, siteID, natures,
		tenantID, siteID, natures, from, from.Add(-readingLookaround), from,
		tenantID, siteID, natures, to, to.Add(readingLookaround), to,
	}
	rows, err := db.Conn.Query(ctx, resolvedReadingsSQL, args...)
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
	// ORDER BY already sorts; keep the invariant explicit for the series builder.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
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
	return out, nil
}
