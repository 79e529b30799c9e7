package schema_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"energy/schema"
	"energy/schema/chtest"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

func tables(t *testing.T, db *schema.DB) []string {
	t.Helper()
	rows, err := db.Conn.Query(context.Background(), "SELECT name FROM system.tables WHERE database = ? ORDER BY name", db.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func TestMigrateTwiceLeavesOneSchema(t *testing.T) {
	db := chtest.DB(t) // migrated once
	before := tables(t, db)
	if err := db.Migrate(context.Background(), nil); err != nil {
		t.Fatalf("second migration run: %v", err)
	}
	after := tables(t, db)
	if strings.Join(before, ",") != strings.Join(after, ",") {
		t.Fatalf("tables changed on second run:\n%v\n%v", before, after)
	}
	for _, want := range []string{"tenants", "api_tokens", "sites", "pods", "tariffs", "weather_stations", "elec_indexes", "load_curve_points", "schema_migrations"} {
		found := false
		for _, n := range after {
			found = found || n == want
		}
		if !found {
			t.Errorf("table %s missing after migrations: %v", want, after)
		}
	}
	all, _ := schema.Migrations()
	var n uint64
	if err := db.Conn.QueryRow(context.Background(), "SELECT count() FROM schema_migrations FINAL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if int(n) != len(all) {
		t.Fatalf("schema_migrations holds %d versions, want %d", n, len(all))
	}
}

func TestMigrateConcurrently(t *testing.T) {
	dsn := chtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	dbs := make([]*schema.DB, 4)
	for i := range dbs {
		db, err := schema.Open(ctx, dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	for i := range dbs {
		wg.Add(1)
		go func(i int) { defer wg.Done(); errs[i] = dbs[i].Migrate(ctx, nil) }(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migrator %d: %v", i, err)
		}
	}
	var rows, distinct uint64
	if err := dbs[0].Conn.QueryRow(ctx, "SELECT count(), uniqExact(version) FROM schema_migrations").Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	all, _ := schema.Migrations()
	if int(distinct) != len(all) || rows != distinct {
		t.Fatalf("concurrent runs recorded %d rows for %d versions, want each of %d once", rows, distinct, len(all))
	}
	for _, n := range tables(t, dbs[0]) {
		if n == "schema_migrations_lock" {
			t.Fatal("migration lock left behind")
		}
	}
}

func TestRenderClusterVariant(t *testing.T) {
	all, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var joined string
	for _, m := range all[:2] { // the registry, then the readings
		stmts, err := schema.Render(m, "energy", "main")
		if err != nil {
			t.Fatal(err)
		}
		joined += strings.Join(stmts, "\n;\n")
	}
	for _, want := range []string{
		// The registry: one replicated table on every node, no Distributed table.
		"CREATE TABLE IF NOT EXISTS `energy`.tenants ON CLUSTER `main`",
		"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/energy/tenants', '{replica}', version)",
		// The readings: a replicated table per shard under a Distributed table sharded by site.
		"CREATE TABLE IF NOT EXISTS `energy`.elec_indexes_local ON CLUSTER `main`",
		"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/energy/elec_indexes', '{replica}')",
		"CREATE TABLE IF NOT EXISTS `energy`.elec_indexes ON CLUSTER `main` AS `energy`.elec_indexes_local ENGINE = Distributed(`main`, `energy`, elec_indexes_local, cityHash64(tenant_id, site_id))",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("cluster rendering lacks %q", want)
		}
	}
	if strings.Contains(joined, "tenants_local") {
		t.Error("cluster rendering shards the tenants table")
	}
	// An ALTER of a table on every node runs on one node; replication carries it to the others.
	for _, m := range all {
		stmts, err := schema.Render(m, "energy", "main")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if strings.HasPrefix(s, "ALTER TABLE `energy`.sites ") && strings.Contains(s, "ON CLUSTER") {
				t.Errorf("%s: ALTER of sites, on every node, sent ON CLUSTER: %s", m.Name, s)
			}
		}
	}
	single, _ := schema.Render(all[0], "energy", "")
	if strings.Contains(strings.Join(single, ""), "Replicated") || strings.Contains(strings.Join(single, ""), "_local") {
		t.Error("single-node rendering mentions cluster engines")
	}
}

// 18.16 needs the LowCardinality setting to create such columns; Migrate sends it because the
// server lists it (current releases do not, and are sent nothing).
func TestDDLSettingsFollowSystemSettings(t *testing.T) {
	db := chtest.DB(t)
	rows, err := db.Conn.Query(context.Background(), schema.DDLSettingsQuery)
	if err != nil {
		t.Fatal(err)
	}
	var known []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		known = append(known, n)
	}
	rows.Close()
	if got := schema.DDLSettings(known); got["allow_experimental_low_cardinality_type"] != 1 || len(got) != 1 {
		t.Fatalf("18.16 lists %v: settings %v, want the LowCardinality one", known, got)
	}
	if got := schema.DDLSettings([]string{"max_threads"}); len(got) != 0 {
		t.Fatalf("a server without the setting would be sent %v", got)
	}
	// A LowCardinality column can be created with exactly what Migrate sends.
	sent := clickhouse.Settings{}
	for k, v := range schema.DDLSettings(known) {
		sent[k] = v
	}
	ctx := clickhouse.Context(context.Background(), clickhouse.WithSettings(sent))
	if err := db.Conn.Exec(ctx, "CREATE TABLE lc_probe (s LowCardinality(String)) ENGINE = MergeTree ORDER BY s"); err != nil {
		t.Fatal(err)
	}
}
