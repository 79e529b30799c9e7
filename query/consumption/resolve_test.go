package consumption

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// referenceResolutionSQL is the resolution as ClickHouse computed it before it moved to Go
// (resolveRecords): nested aggregations per (pod, ts, indexBeforeChange, family, dial), per
// family, then per (pod, ts, indexBeforeChange). It is kept here as the reference the Go
// resolution must match row for row.
var referenceResolutionSQL = func() string {
	var prio strings.Builder
	prio.WriteString("multiIf(")
	for i, f := range natureFamilies[:len(natureFamilies)-1] {
		fmt.Fprintf(&prio, "nature IN ('%s', '%s%s'), %d, ", f.nature, f.nature, invalidSuffix, i)
	}
	fmt.Fprintf(&prio, "%d)", len(natureFamilies)-1)
	rank := "(toUInt64(generation_ts) * 2 + endsWith(nature, '" + invalidSuffix + "'))"
	return `
SELECT pod_id, dial, ts, ibc, best, value
FROM (
    SELECT pod_id, ts, ibc, min(prio) AS best, argMin(ds, prio) AS dials, argMin(vs, prio) AS vals
    FROM (
        SELECT pod_id, ts, ibc, prio, max(k) AS fk,
               arrayFilter((d, kk) -> kk = fk, groupArray(dial), groupArray(k)) AS ds,
               arrayFilter((v, kk) -> kk = fk, groupArray(v), groupArray(k)) AS vs
        FROM (
            SELECT pod_id, ts, index_before_change AS ibc, ` + prio.String() + ` AS prio, dial,
                   max(` + rank + `) AS k, argMax(value, (` + rank + `, value)) AS v
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
}()

// TestResolveRecordsMatchesSQL: random records crowded on few pods, instants, dials, natures
// and generations (re-sent duplicates, invalidations, ties of generation and contradictory
// values included) resolve in Go exactly as the reference SQL resolves them, under every
// category filter.
func TestResolveRecordsMatchesSQL(t *testing.T) {
	f := newConsumptionFixture(t)
	rnd := rand.New(rand.NewPCG(4, 2))
	base := pd("2024-03-01")
	var rows []idxRow
	for range 3000 {
		r := idxRow{
			pod:    []string{"PDL1", "PDL2"}[rnd.IntN(2)],
			ts:     base.Add(time.Duration(rnd.IntN(20)) * 24 * time.Hour),
			before: rnd.IntN(4) == 0,
			nature: natureFamilies[rnd.IntN(len(natureFamilies))].nature,
			dial:   fmt.Sprint(1 + rnd.IntN(3)),
			value:  int64(rnd.IntN(5)) * 100,
		}
		if rnd.IntN(5) == 0 {
			r.nature += invalidSuffix
		}
		r.gen = r.ts.Add(time.Duration(1+rnd.IntN(3)) * time.Hour)
		rows = append(rows, r)
		if rnd.IntN(5) == 0 { // re-sent as is
			rows = append(rows, r)
		}
	}
	// Two inserts, so that the records lie in several unmerged parts.
	f.indexes(rows[:len(rows)/2]...)
	f.indexes(rows[len(rows)/2:]...)

	ctx := context.Background()
	from, to := base.Add(24*time.Hour).UTC(), base.Add(15*24*time.Hour).UTC()
	for _, cats := range [][]string{nil, {"SMART_METER"}, {"SELF_METER_READING", "ESTIMATED"}, {"LEGACY_METER", "ESTIMATED"}} {
		allowed := allowedNatures(cats)
		want, err := referenceReadings(ctx, f, allowed, from, to)
		if err != nil {
			t.Fatal(err)
		}
		site := f.db.ReadSite(fxTenant, fxSite)
		recs, err := queryRecords(ctx, site, fluids[FluidElec].readingsOf(site), fxTenant, fxSite, allowed, from, to)
		if err != nil {
			t.Fatal(err)
		}
		got := resolveRecords(recs)
		sortReadings(got)
		if len(want) < 50 {
			t.Fatalf("categories %v: only %d resolved readings, the data is too thin to compare", cats, len(want))
		}
		t.Logf("categories %v: %d records, %d readings", cats, len(recs), len(want))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("categories %v: Go resolution differs from the SQL one (%d vs %d readings)", cats, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("first difference at %d: got %+v, want %+v", i, got[i], want[i])
				}
			}
		}
	}
}

func referenceReadings(ctx context.Context, f *consumptionFixture, natures []string, from, to time.Time) ([]reading, error) {
	rows, err := f.db.Conn.Query(ctx, referenceResolutionSQL, fxTenant, fxSite, natures, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []reading
	for rows.Next() {
		var (
			r       reading
			ibc, pr uint8
		)
		if err := rows.Scan(&r.pod, &r.dial, &r.ts, &ibc, &pr, &r.value); err != nil {
			return nil, err
		}
		r.beforeChange, r.priority, r.factor = ibc == 1, int(pr), 1 // electricity indexes are in Wh: factor 1
		out = append(out, r)
	}
	sortReadings(out)
	return out, rows.Err()
}
