package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/registry"
)

// TestDailyRebuildWritesTheStoredDays loads readings straight into the raw table (as data
// loaded before the daily table existed) and checks that the command writes their days: three
// Paris midnights 150 and 150 Wh apart give two days of 150 Wh and the day of the last reading
// without data after it.
func TestDailyRebuildWritesTheStoredDays(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	db, err := schema.Open(ctx, c.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := registry.New(db).PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	ts := time.Date(2024, 3, 1, 0, 0, 0, 0, paris)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []int64{100, 250, 400} {
		if err := b.Append("acme", "S1", "P1", ts.AddDate(0, 0, i), uint8(0), "MKT_SMART_DISTRIBUTOR", ts.AddDate(0, 0, i+1), "1", v, "j"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := dailyRebuild(ctx, append(c.args(), "--tenant", "acme"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1/1 site fluids, 3 days written") {
		t.Fatalf("printed %q", out.String())
	}
	rows, err := db.Conn.Query(ctx, "SELECT toString(day), energy_wh, status FROM daily_energy FINAL WHERE site_id = 'S1' ORDER BY day")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var day, status string
		var wh *float64
		if err := rows.Scan(&day, &wh, &status); err != nil {
			t.Fatal(err)
		}
		s := day + " " + status
		if wh != nil {
			s += " " + strconv.FormatFloat(*wh, 'f', -1, 64)
		}
		got = append(got, s)
	}
	want := []string{"2024-03-01 COMPLETE 150", "2024-03-02 COMPLETE 150", "2024-03-03 NO_DATA"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if err := dailyRebuild(ctx, append(c.args(), "--sites", "S1"), &out); err == nil || !strings.Contains(err.Error(), "--sites needs --tenant") {
		t.Fatalf("--sites without --tenant: %v", err)
	}
}

// TestSiteAndTariffPutRewriteTheirDays: a tariff or a site written straight to the store by
// energyctl rewrites the stored days it moves, as energyd's API does: the tariff's dials swap
// their headings, then the site drops its tariff (each dial its own heading).
func TestSiteAndTariffPutRewriteTheirDays(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	db, err := schema.Open(ctx, c.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	if err := tariffPut(ctx, c.args("T1", "--tenant", "acme", "--file", writeFile(t, "t.json", hphcJSON)), &out); err != nil {
		t.Fatal(err)
	}
	if err := sitePut(ctx, c.args("S1", "--tenant", "acme", "--timezone", "Europe/Paris", "--tariff", "T1"), &out); err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	ts := time.Date(2024, 3, 1, 0, 0, 0, 0, paris)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range [][2]int64{{100, 1000}, {250, 1010}, {400, 1030}} {
		for d, value := range v {
			if err := b.Append("acme", "S1", "P1", ts.AddDate(0, 0, i), uint8(0), "MKT_SMART_DISTRIBUTOR", ts.AddDate(0, 0, i+1), strconv.Itoa(d+1), value, "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	if err := dailyRebuild(ctx, append(c.args(), "--tenant", "acme"), &out); err != nil {
		t.Fatal(err)
	}
	headings := func() string {
		t.Helper()
		var names []string
		var wh []float64
		if err := db.Conn.QueryRow(ctx, "SELECT heading_names, heading_wh FROM daily_energy FINAL WHERE site_id = 'S1' AND day = '2024-03-02'").Scan(&names, &wh); err != nil {
			t.Fatal(err)
		}
		var s []string
		for i, n := range names {
			s = append(s, n+"="+strconv.FormatFloat(wh[i], 'f', -1, 64))
		}
		return strings.Join(s, " ")
	}
	if got := headings(); got != "HC=150 HP=20" {
		t.Fatalf("March 2nd under T1: %s, want HC=150 HP=20", got)
	}
	swapped := strings.Replace(hphcJSON, `{"1": "HC", "2": "HP"}`, `{"1": "HP", "2": "HC"}`, 1)
	if err := tariffPut(ctx, c.args("T1", "--tenant", "acme", "--file", writeFile(t, "t.json", swapped)), &out); err != nil {
		t.Fatal(err)
	}
	if got := headings(); got != "HC=20 HP=150" {
		t.Errorf("March 2nd once T1's dials swap headings: %s, want HC=20 HP=150", got)
	}
	if err := sitePut(ctx, c.args("S1", "--tenant", "acme", "--timezone", "Europe/Paris"), &out); err != nil {
		t.Fatal(err)
	}
	if got := headings(); got != "1=150 2=20" {
		t.Errorf("March 2nd once S1 has no tariff: %s, want 1=150 2=20", got)
	}
}
