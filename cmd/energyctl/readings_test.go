package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"energy/schema"
)

func TestReadingsRebuildRestoresTheBySiteTables(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	db, err := schema.Open(ctx, c.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ts := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
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
	b, err = db.Conn.PrepareBatch(ctx, "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []int64{600, 900} {
		begin := ts.Add(time.Duration(i) * 30 * time.Minute)
		if err := b.Append("acme", "S1", "P1", begin, begin.Add(30*time.Minute), ts.AddDate(0, 0, 1), w, uint8(0), ts, "j"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	sum := func() (n uint64, total int64) {
		t.Helper()
		if err := db.Conn.QueryRow(ctx, "SELECT count(), sum(value) FROM (SELECT DISTINCT * FROM elec_indexes_by_site)").Scan(&n, &total); err != nil {
			t.Fatal(err)
		}
		var points uint64
		var watts int64
		if err := db.Conn.QueryRow(ctx, "SELECT count(), sum(value) FROM (SELECT DISTINCT * FROM load_curve_points_by_site)").Scan(&points, &watts); err != nil {
			t.Fatal(err)
		}
		return n + points, total + watts
	}
	if n, total := sum(); n != 5 || total != 2250 {
		t.Fatalf("after insert, the by-site tables hold %d rows summing %d, want 5 summing 2250 (copied by their views)", n, total)
	}
	for _, table := range []string{"elec_indexes_by_site", "load_curve_points_by_site"} {
		if err := db.Conn.Exec(ctx, "TRUNCATE TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := sum(); n != 0 {
		t.Fatalf("emptied by-site tables hold %d rows", n)
	}
	var out bytes.Buffer
	if err := readingsRebuild(ctx, c.args(), &out); err != nil {
		t.Fatal(err)
	}
	if n, total := sum(); n != 5 || total != 2250 {
		t.Fatalf("after rebuild, the by-site tables hold %d rows summing %d, want 5 summing 2250", n, total)
	}
	want := "elec_indexes_by_site: 3 rows copied\ngas_indexes_by_site: 0 rows copied\nload_curve_points_by_site: 2 rows copied\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	// Again: nothing changes but the copies, which readers count once.
	if err := readingsRebuild(ctx, c.args(), &out); err != nil {
		t.Fatal(err)
	}
	if n, total := sum(); n != 5 || total != 2250 {
		t.Fatalf("after a second rebuild, %d distinct rows summing %d, want 5 summing 2250", n, total)
	}
}
