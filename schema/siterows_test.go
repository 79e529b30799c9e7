package schema_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
)

// Lightweight DELETE FROM from ClickHouse 23.3 on; 18.16 and 23.2 have mutations only.
func TestLightweightDeletesByVersion(t *testing.T) {
	for v, want := range map[string]bool{"18.16.1": false, "22.8.5.29": false, "23.2.9.1": false, "23.3.1.2823": true,
		"24.1.1.1": true, "26.1.2.11": true, "": false, "unknown": false} {
		if got := schema.LightweightDeletes(v); got != want {
			t.Errorf("LightweightDeletes(%q) = %v, want %v", v, got, want)
		}
	}
}

// On ClickHouse 18.16 DeleteSiteRows removes the site's rows with a mutation (ALTER TABLE …
// DELETE, seen in system.mutations and done) and leaves the other site's.
func TestDeleteSiteRowsByMutationOn18(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	insertIndexes(t, db, "GONE", "KEPT")
	// The table as an erasure finds it: on a cluster (make test-cluster) the sharded local
	// table, read through its Distributed table.
	all, err := db.SiteTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table schema.SiteTable
	for _, st := range all {
		if st.Read == "elec_indexes" {
			table = st
		}
	}
	if table.Name == "" {
		t.Fatalf("elec_indexes not among the site tables %+v", all)
	}
	if err := db.DeleteSiteRows(ctx, table, "acme", "GONE"); err != nil {
		t.Fatal(err)
	}
	var command string
	var done uint8
	if err := db.Conn.QueryRow(ctx, "SELECT command, is_done FROM system.mutations WHERE database = ? AND table = ?", db.Name, table.Name).Scan(&command, &done); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(command, "DELETE WHERE") || done != 1 {
		t.Fatalf("mutation %q done %d, want a DELETE WHERE mutation, done", command, done)
	}
	// This server's mutation is done; another shard's may still run (as an erasure does, the
	// test counts until none is left, within a bound).
	for site, want := range map[string]uint64{"GONE": 0, "KEPT": 2} {
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			n, err := db.CountSiteRows(ctx, table, "acme", site)
			if err == nil && n == want {
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: %d rows (%v), want %d", site, n, err, want)
			}
		}
	}
}

// On ClickHouse 26.x (make test-compat, in process) the server has lightweight deletes and the
// statement the erasure sends, a DELETE FROM, removes the site's rows from readings and load
// curves at once while the other site keeps its own.
func TestDeleteSiteRowsLightweightOn26(t *testing.T) {
	engine, database := chtest.InProcess(t)
	version, err := engine.Query("SELECT version()", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(version)); !schema.LightweightDeletes(v) {
		t.Fatalf("version %s: no lightweight deletes", v)
	}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02 15:04:05")
	for _, site := range []string{"GONE", "KEPT"} {
		for _, insert := range []string{
			fmt.Sprintf("INSERT INTO %s.elec_indexes (tenant_id, site_id, pod_id, ts, nature, generation_ts, dial, value, job_id) VALUES ('acme', '%s', 'P', '%s', 'MKT_SMART_DISTRIBUTOR', '%s', '1', 100, 'j'), ('acme', '%[2]s', 'P', '%[3]s', 'MKT_SMART_DISTRIBUTOR', '%[4]s', '2', 50, 'j')", database, site, ts, ts),
			fmt.Sprintf("INSERT INTO %s.load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id) VALUES ('acme', '%s', 'P', '%s', '%[3]s', '%[3]s', 500, 0, '%[3]s', 'j')", database, site, ts),
		} {
			if _, err := engine.Query(insert, "TabSeparated"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"elec_indexes", "load_curve_points"} {
		stmt := schema.SiteRowsDeletion(database, "", schema.SiteTable{Name: name, Read: name}, true)
		if !strings.HasPrefix(stmt, "DELETE FROM ") {
			t.Fatalf("statement %q, want a lightweight DELETE FROM", stmt)
		}
		bound, err := chtest.Bind(stmt, "acme", "GONE")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Query(bound, "TabSeparated"); err != nil {
			t.Fatalf("%s: %v", bound, err)
		}
		out, err := engine.Query(fmt.Sprintf("SELECT site_id, count() FROM %s.%s GROUP BY site_id ORDER BY site_id", database, name), "TabSeparated")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"elec_indexes": "KEPT\t2\n", "load_curve_points": "KEPT\t1\n"}[name]
		if string(out) != want {
			t.Fatalf("%s after the DELETE: %q, want %q", name, out, want)
		}
	}
}

// insertIndexes writes two electricity indexes (two dials) of each site.
func insertIndexes(t *testing.T, db *schema.DB, sites ...string) {
	t.Helper()
	ctx := context.Background()
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for _, site := range sites {
		for _, dial := range []string{"1", "2"} {
			if err := b.Append("acme", site, "P", ts, uint8(0), "MKT_SMART_DISTRIBUTOR", ts, dial, int64(100), "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}
