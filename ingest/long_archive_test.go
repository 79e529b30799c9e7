package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// The longest files the limits allow go through the real ingest path with every operation OK
// and read back whole: 10,000 daily indexes (27 years, 329 monthly partitions) and 1,500 load
// curves of 48 points, one a month for 125 years (1,500 partitions). ClickHouse 24 and later
// refuse an INSERT into more than 100 partitions; under make test-compat every INSERT the
// job sends is also sent to 26.x as it is (chtest.SendInsertsTo26), and the reads below,
// consumption answers included, are replayed there on the same rows.
func TestLongestFilesLandWholeOnEveryVersion(t *testing.T) {
	env := newJobEnv(t)
	chtest.SendInsertsTo26(t, env.db)
	ctx := context.Background()
	for _, s := range []registry.Site{
		{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1", Timezone: "UTC"},
		{TenantID: "acme", SiteID: "S2", Timezone: "UTC"},
	} {
		if err := env.reg.PutSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	// S1: a reading every day at midnight UTC from 1999-01-01, each day's consumption
	// 1,000 Wh times its day of the week (1 to 7).
	first := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)
	index := make([]int64, MaxIndexesPerFile)
	var indexes strings.Builder
	indexes.WriteString(`{"smartElecIndexes":[`)
	for d := range MaxIndexesPerFile {
		day := first.AddDate(0, 0, d)
		if d > 0 {
			indexes.WriteByte(',')
			index[d] = index[d-1] + 1000*int64(day.Weekday()+1)
		}
		fmt.Fprintf(&indexes, `{"siteId":"S1","podId":"PDL-1","nature":"MKT_SMART_DISTRIBUTOR","ts":"%s","generationTs":"%s","value":{"1":%d}}`,
			day.Format(time.RFC3339), day.Add(6*time.Hour).Format(time.RFC3339), index[d])
	}
	indexes.WriteString("]}")
	last := first.AddDate(0, 0, MaxIndexesPerFile-1)

	// S2: on the 15th of every month from January 1970, 48 half-hour points of (month number
	// mod 1,000) + point W.
	curveStart := time.Date(1970, 1, 15, 0, 0, 0, 0, time.UTC)
	var curves strings.Builder
	curves.WriteString(`{"loadCurves":[`)
	for c := range MaxLoadCurvesPerFile {
		day := curveStart.AddDate(0, c, 0)
		if c > 0 {
			curves.WriteByte(',')
		}
		fmt.Fprintf(&curves, `{"siteId":"S2","podId":"PDL-2","meterReadingDate":"%s","generationTs":"%s","step":"PT30M","values":[`,
			day.Format(time.DateOnly), day.AddDate(0, 0, 1).Format(time.RFC3339))
		for p := range 48 {
			if p > 0 {
				curves.WriteByte(',')
			}
			fmt.Fprintf(&curves, `{"beginTs":"%s","value":%d,"reliability":0}`, day.Add(time.Duration(p)*30*time.Minute).Format(time.RFC3339), c%1000+p)
		}
		curves.WriteString("]}")
	}
	curves.WriteString("]}")
	lastCurve := curveStart.AddDate(0, MaxLoadCurvesPerFile-1, 0)

	svc := env.service(nil)
	env.start(svc)
	archive := jobArchive(t, jobFile{"indexes.json", indexes.String()}, jobFile{"curves.json", curves.String()})
	if len(archive) > MaxArchiveBytes {
		t.Fatalf("the archive is %d bytes, over the limit", len(archive))
	}
	j := submitArchive(t, svc, "history.tar.gz", archive)
	// 1,829 partitions make as many parts at least: a minute or more on 18.16 on a loaded machine.
	start := time.Now()
	done := waitStateWithin(t, 5*time.Minute, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
	t.Logf("job done in %s", time.Since(start).Round(time.Second))
	want := Overview{Total: MaxIndexesPerFile + MaxLoadCurvesPerFile, OK: MaxIndexesPerFile + MaxLoadCurvesPerFile}
	if done.State != StateDone || done.Overview != want {
		t.Fatalf("job %s %+v %+v, want DONE %+v", done.State, done.Overview, done.Error, want)
	}
	var pods uint64
	if err := env.db.Conn.QueryRow(ctx, "SELECT count() FROM pods FINAL WHERE tenant_id = ?", "acme").Scan(&pods); err != nil || pods != 2 {
		t.Fatalf("%d pods (%v), want 2", pods, err)
	}

	// Every partition holds its rows: per month, the count, the first and last reading, and the
	// sum of the values, from each table the readers use.
	wantIndexMonths := map[string]string{}
	for d := range MaxIndexesPerFile {
		day := first.AddDate(0, 0, d)
		m := day.Format("200601")
		if _, ok := wantIndexMonths[m]; !ok {
			var n, sum int64
			lo, hi := index[d], index[d]
			for k := d; k < MaxIndexesPerFile && first.AddDate(0, 0, k).Format("200601") == m; k++ {
				n, sum, hi = n+1, sum+index[k], index[k]
			}
			wantIndexMonths[m] = fmt.Sprintf("%s %d %d %d %d", m, n, lo, hi, sum)
		}
	}
	for _, table := range []string{"elec_indexes", "elec_indexes_by_site"} {
		got := monthLines(t, env.db, "SELECT toYYYYMM(ts) AS month, count() AS n, min(value) AS lo, max(value) AS hi, sum(value) AS total FROM "+
			table+" FINAL WHERE tenant_id = ? AND site_id = ? GROUP BY month ORDER BY month", "acme", "S1")
		if len(got) != len(wantIndexMonths) {
			t.Fatalf("%s: %d months, want %d (%s to %s)", table, len(got), len(wantIndexMonths), first.Format(time.DateOnly), last.Format(time.DateOnly))
		}
		for _, line := range got {
			if want := wantIndexMonths[line[:6]]; line != want {
				t.Errorf("%s: month %q, want %q", table, line, want)
			}
		}
	}
	// A hundred months at a time: a FINAL read of all 1,500 parts at once opens more files than
	// the tests' server may (20,000).
	var curveMonths []string
	for lo := curveStart.AddDate(0, 0, -14); lo.Before(lastCurve); lo = lo.AddDate(0, schema.MaxPartitionsPerInsert, 0) {
		curveMonths = append(curveMonths, monthLines(t, env.db, "SELECT toYYYYMM(begin_ts) AS month, count() AS n, min(value) AS lo, max(value) AS hi, sum(value) AS total FROM "+
			"load_curve_points FINAL WHERE tenant_id = ? AND site_id = ? AND begin_ts >= ? AND begin_ts < ? GROUP BY month ORDER BY month",
			"acme", "S2", lo, lo.AddDate(0, schema.MaxPartitionsPerInsert, 0))...)
	}
	if len(curveMonths) != MaxLoadCurvesPerFile {
		t.Fatalf("load curve: %d months, want %d (%s to %s)", len(curveMonths), MaxLoadCurvesPerFile, curveStart.Format(time.DateOnly), lastCurve.Format(time.DateOnly))
	}
	for c, line := range curveMonths {
		v := int64(c % 1000)
		if want := fmt.Sprintf("%s 48 %d %d %d", curveStart.AddDate(0, c, 0).Format("200601"), v, v+47, 48*v+47*48/2); line != want {
			t.Errorf("load curve: month %q, want %q", line, want)
		}
	}

	// Consumption answers over the whole history: each year of S1 from its indexes, and one
	// day of S2 from its load curve in the last partition but one.
	engine := consumption.NewEngine(env.db, env.reg, 0.06)
	s1, err := env.reg.Site(ctx, "acme", "S1")
	if err != nil {
		t.Fatal(err)
	}
	years, err := engine.Compute(ctx, s1, consumption.Request{Start: first, End: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		StepUnit: "YEARS", StepValue: 1, WithoutCost: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(years.Consumptions) != 27 {
		t.Fatalf("%d yearly items, want 27", len(years.Consumptions))
	}
	for y, item := range years.Consumptions {
		from := int(time.Date(1999+y, 1, 1, 0, 0, 0, 0, time.UTC).Sub(first).Hours() / 24)
		to := int(time.Date(2000+y, 1, 1, 0, 0, 0, 0, time.UTC).Sub(first).Hours() / 24)
		if wh := item.EnergyMeter.Total; wh == nil || *wh != float64(index[to]-index[from]) || item.Status != consumption.StatusComplete {
			t.Errorf("year %d: %v Wh %s, want %d COMPLETE", 1999+y, wh, item.Status, index[to]-index[from])
		}
	}
	s2, err := env.reg.Site(ctx, "acme", "S2")
	if err != nil {
		t.Fatal(err)
	}
	c := MaxLoadCurvesPerFile - 2
	day := curveStart.AddDate(0, c, 0)
	hours, err := engine.Compute(ctx, s2, consumption.Request{Start: day, End: day.AddDate(0, 0, 1), StepUnit: "HOURS", StepValue: 1, WithoutCost: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hours.Consumptions) != 24 {
		t.Fatalf("%d hourly items on %s, want 24", len(hours.Consumptions), day.Format(time.DateOnly))
	}
	for h, item := range hours.Consumptions {
		// Two half-hour points: (v + 2h) W and (v + 2h + 1) W for 0.5 h each.
		want := float64(2*(c%1000)+4*h+1) / 2
		if wh := item.EnergyMeter.Total; wh == nil || *wh != want || !item.UsingLoadCurve {
			t.Errorf("%s hour %d: %v Wh (load curve %t), want %v", day.Format(time.DateOnly), h, wh, item.UsingLoadCurve, want)
		}
	}
}

// monthLines runs a per-month summary query and returns its rows as space-separated lines.
func monthLines(t *testing.T, db *schema.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Conn.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var month uint32
		var n uint64
		var lo, hi, total int64
		if err := rows.Scan(&month, &n, &lo, &hi, &total); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %d %d %d %d", month, n, lo, hi, total))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
