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
