package chdb_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"energy/schema"
	"energy/schema/chdb"
	"energy/schema/chtest"
)

// engine opens ClickHouse 26.x in-process; without libchdb the test fails under CI and is
// skipped elsewhere.
func engine(t *testing.T) *chdb.Session {
	t.Helper()
	s, err := chdb.Open(t.TempDir())
	if errors.Is(err, chdb.ErrAbsent) && os.Getenv("CI") != "true" {
		t.Skipf("SKIPPED, %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestMigrationsApplyOnClickHouse26(t *testing.T) {
	s := engine(t)
	if v, err := s.Query("SELECT version()", "TabSeparated"); err != nil || !strings.HasPrefix(string(v), "26.") {
		t.Fatalf("in-process engine is %q (%v), want 26.x", v, err)
	}
	known, err := s.Query(schema.DDLSettingsQuery, "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.DDLSettings(strings.Fields(string(known))); len(got) != 0 {
		t.Fatalf("26.x would be sent %v, settings it no longer knows", got)
	}
	if err := chtest.MigrateInProcess(s, "energy"); err != nil {
		t.Fatal(err)
	}
	out, err := s.Query("SELECT name FROM system.tables WHERE database = 'energy' ORDER BY name", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	tables := strings.Fields(string(out))
	for _, want := range []string{"schema_migrations", "tenants", "sites", "elec_indexes", "elec_indexes_by_site", "gas_indexes_by_site", "load_curve_points", "jobs"} {
		if !contains(tables, want) {
			t.Errorf("table %s missing on 26.x after migrations: %v", want, tables)
		}
	}
	// Applying them again changes nothing: every statement is idempotent on 26.x too.
	if err := chtest.MigrateInProcess(s, "energy"); err != nil {
		t.Fatalf("second run: %v", err)
	}
}

// The cluster rendering needs ZooKeeper and remote servers, which the in-process engine does
// not have: 26.x parses every statement, which catches syntax it no longer accepts.
func TestClusterMigrationsParseOnClickHouse26(t *testing.T) {
	s := engine(t)
	all, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{schema.MigrationsTableSQL("energy", "energy_cluster")}
	for _, m := range all {
		r, err := schema.Render(m, "energy", "energy_cluster")
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, r...)
	}
	for _, st := range stmts {
		// An INSERT (the by-site index tables filled from the raw ones) runs once, from one node,
		// through the Distributed tables, which send each row to its shard.
		if !strings.Contains(st, "ON CLUSTER") && !alterOfTableOnEveryNode(st) && !strings.HasPrefix(st, "INSERT INTO `energy`.") {
			t.Errorf("cluster statement without ON CLUSTER:\n%s", st)
		}
		lit := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(st) + "'"
		if _, err := s.Query("SELECT formatQuery("+lit+")", "TabSeparated"); err != nil {
			t.Errorf("26.x cannot parse:\n%s\n%v", st, err)
		}
	}
}

// alterOfTableOnEveryNode: an ALTER of a table replicated whole on every node is sent to one
// node on purpose (its replicas share one ZooKeeper path; see schema.Render).
func alterOfTableOnEveryNode(st string) bool {
	name, _, ok := strings.Cut(strings.TrimPrefix(st, "ALTER TABLE `energy`."), " ")
	return ok && strings.HasPrefix(st, "ALTER TABLE ") && schema.ReplicatedOnEveryNode[name]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
