package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"energy/bench"
	"energy/schema/chtest"
)

// TestIndexScanSQLAnswersAsTheNestedSQL: the all-sites scan of the indexes gives, on readings
// with the cases its shortcut must get right, the energies worked out by hand, which are those
// of the per-site MONTHS query run over every site (the nested form it replaces).
func TestIndexScanSQLAnswersAsTheNestedSQL(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	loc, _ := time.LoadLocation(bench.Timezone)
	const year = 2024
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	gen1, gen2 := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	add := func(site, dial string, y int, m time.Month, d int, nature string, gen time.Time, value int64) {
		t.Helper()
		if err := b.Append(bench.Tenant, site, "POD-"+site, time.Date(y, m, d, 0, 0, 0, 0, loc).UTC(), uint8(0), nature, gen, dial, value, "test"); err != nil {
			t.Fatal(err)
		}
	}
	const smart, invalid, customer = "MKT_SMART_DISTRIBUTOR", "MKT_SMART_DISTRIBUTOR_INVALID", "MKT_CUSTOMER"
	// S1 dial 1: January from 1,000; on 15 January a later generation (1,150) wins over 1,100;
	// February from 1,300, and on 10 February the latest record (1,390, an _INVALID one) wins
	// as in the per-site query; nothing in March or April; May from 1,700; the closing reading
	// of 1 January 2025 at 2,000. Outside: a reading of December 2023 and a customer reading.
	add("S1", "1", 2023, time.December, 15, smart, gen1, 500)
	add("S1", "1", 2024, time.January, 1, smart, gen1, 1000)
	add("S1", "1", 2024, time.January, 15, smart, gen1, 1100)
	add("S1", "1", 2024, time.January, 15, smart, gen2, 1150)
	add("S1", "1", 2024, time.January, 20, customer, gen2, 9999)
	add("S1", "1", 2024, time.February, 1, smart, gen1, 1300)
	add("S1", "1", 2024, time.February, 10, smart, gen1, 1400)
	add("S1", "1", 2024, time.February, 10, invalid, gen2, 1390)
	add("S1", "1", 2024, time.May, 1, smart, gen1, 1700)
	add("S1", "1", 2025, time.January, 1, smart, gen1, 2000)
	// S1 dial 2: 50 and 70 in June, then one reading on 31 December at 100, the series' last.
	add("S1", "2", 2024, time.June, 1, smart, gen1, 50)
	add("S1", "2", 2024, time.June, 2, smart, gen1, 70)
	add("S1", "2", 2024, time.December, 31, smart, gen1, 100)
	// S0 dial 1, listed before S1: the same index in January and March.
	add("S0", "1", 2024, time.January, 1, smart, gen1, 0)
	add("S0", "1", 2024, time.March, 3, smart, gen1, 0)
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}

	month := func(m time.Month) string { return time.Date(year, m, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly) }
	// Each month: the index at the first reading after its last one minus its first index.
	want := []string{
		"S0/1 " + month(time.January) + " 0",    // 0 on 3 March − 0
		"S1/1 " + month(time.January) + " 300",  // 1,300 on 1 February − 1,000
		"S1/1 " + month(time.February) + " 400", // 1,700 on 1 May − 1,300, across the gap
		"S1/1 " + month(time.May) + " 300",      // 2,000 on 1 January 2025 − 1,700
		"S1/2 " + month(time.June) + " 50",      // 100 on 31 December − 50
	}
	read := func(sql string) []string {
		t.Helper()
		rows, err := db.Conn.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var site, dial string
			var step time.Time
			var wh int64
			if err := rows.Scan(&site, &dial, &step, &wh); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s/%s %s %d", site, dial, step.Format(time.DateOnly), wh))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := read(chIndexScanSQL(year)); !slices.Equal(got, want) {
		t.Errorf("scan:\n%q\nwant\n%q", got, want)
	}
	if got := read(indexStepsSQL("1", "site_id, dial", year, "toStartOfMonth")); !slices.Equal(got, want) {
		t.Errorf("per-site MONTHS query over every site:\n%q\nwant\n%q", got, want)
	}
}
