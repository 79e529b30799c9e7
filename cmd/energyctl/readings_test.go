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
	sum := func() (n uint64, total int64) {
		t.Helper()
		if err := db.Conn.QueryRow(ctx, "SELECT count(), sum(value) FROM (SELECT DISTINCT * FROM elec_indexes_by_site)").Scan(&n, &total); err != nil {
			t.Fatal(err)
		}
		return n, total
	}
	if n, total := sum(); n != 3 || total != 750 {
		t.Fatalf("after insert, the by-site table holds %d rows summing %d, want 3 summing 750 (copied by its view)", n, total)
	}
	if err := db.Conn.Exec(ctx, "TRUNCATE TABLE elec_indexes_by_site"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := readingsRebuild(ctx, c.args(), &out); err != nil {
		t.Fatal(err)
	}
	if n, total := sum(); n != 3 || total != 750 {
		t.Fatalf("after rebuild, the by-site table holds %d rows summing %d, want 3 summing 750", n, total)
	}
	want := "elec_indexes_by_site: 3 rows copied\ngas_indexes_by_site: 0 rows copied\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	// Again: nothing changes but the copies, which readers count once.
	if err := readingsRebuild(ctx, c.args(), &out); err != nil {
		t.Fatal(err)
	}
	if n, total := sum(); n != 3 || total != 750 {
		t.Fatalf("after a second rebuild, %d distinct rows summing %d, want 3 summing 750", n, total)
	}
}
