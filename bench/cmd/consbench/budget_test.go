package main

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"energy/bench"
	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// TestBudgetDirectSQLReadsWhatTheModelReads: the two queries the budget benchmark times beside
// the matrix return, on a benchmark site-year, the intervals and daily means the model reads
// (consumption.ReadingIntervals, weather.DailyMeans), so the comparison is like for like.
func TestBudgetDirectSQLReadsWhatTheModelReads(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	const year = 2024
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: year}, nil); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(bench.Timezone)
	siteID := bench.SiteID(0)
	if err := putBudgetSite(ctx, db, reg, year, siteID, loc); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, bench.Tenant, siteID)
	if err != nil || site.WeatherStationID != budgetStation {
		t.Fatalf("site %+v %v: want station %s", site, err, budgetStation)
	}
	now := time.Date(year+1, 1, 2, 12, 0, 0, 0, loc)
	from := now.Add(-800 * 24 * time.Hour)

	want, err := consumption.ReadingIntervals(ctx, db, site, consumption.FluidElec, from, now)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Conn.Query(ctx, budgetIntervalsSQL(siteID, from, now))
	if err != nil {
		t.Fatal(err)
	}
	var got []consumption.ReadingInterval
	for rows.Next() {
		var iv consumption.ReadingInterval
		if err := rows.Scan(&iv.From, &iv.To, &iv.KWh); err != nil {
			t.Fatal(err)
		}
		got = append(got, iv)
	}
	rows.Close()
	if len(want) != 366 || len(got) != len(want) {
		t.Fatalf("%d intervals by direct SQL, %d read by the model, want 366 (the daily readings of %d)", len(got), len(want), year)
	}
	for i := range want {
		if !got[i].From.Equal(want[i].From) || !got[i].To.Equal(want[i].To) || math.Abs(got[i].KWh-want[i].KWh) > 1e-9 {
			t.Fatalf("interval %d: direct SQL %+v, model %+v", i, got[i], want[i])
		}
	}

	const tb = 15.5
	means, err := weather.NewStore(db).DailyMeans(ctx, bench.Tenant, budgetStation, loc, time.Date(year-10, 1, 1, 0, 0, 0, 0, loc), now)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = db.Conn.Query(ctx, budgetDegreeDaysSQL(now, tb, loc))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var day uint32
		var mean, hdd float64
		if err := rows.Scan(&day, &mean, &hdd); err != nil {
			t.Fatal(err)
		}
		if m, ok := means[day]; !ok || m != mean || hdd != math.Max(0, tb-m) {
			t.Fatalf("day %d: direct SQL mean %v and %v degrees, model mean %v (present %v)", day, mean, hdd, m, ok)
		}
		n++
	}
	rows.Close()
	if n != len(means) || n != 731 { // 2023 and 2024 (a leap year), the hourly weather put
		t.Errorf("%d days by direct SQL, %d read by the model, want 731", n, len(means))
	}
}

// TestBudgetTableSaysWhenWhereAndWhatRan: the results file names the commit, the machine and
// the date beside the figures, like the other results files, and marks the targets.
func TestBudgetTableSaysWhenWhereAndWhatRan(t *testing.T) {
	tb := 13.0
	res := &budgetResult{cold: durations(20, 30, 120), cached: durations(0.05, 0.04, 2), intervalsSQL: sqlRun{times: durations(14), rows: 366, bytes: 17 << 10},
		degreeDaysSQL: sqlRun{times: durations(33), rows: 731, bytes: 26 << 10}, balancePoint: &tb, intervals: 365, siteID: "B0500", now: "2025-01-02T12:00:00+01:00"}
	md := res.markdown(&report{spec: bench.Spec{Sites: 1000, Year: 2024}, clickhouseVersion: "18.16.1"}, "SELECT 1", "SELECT 2")
	for _, want := range []string{
		time.Now().UTC().Format("2006-01-02"), "commit " + gitCommit() + ".", "Machine: " + nproc() + " cores, ", "ClickHouse 18.16.1",
		"| budget matrix, 1 site-year | 30.0 ms | 120 ms | ", "computed p50 ≤ 100 ms ✅, cached p50 ≤ 1 ms ✅",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
