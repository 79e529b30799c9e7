package chtest

import (
	"fmt"
	"testing"
	"time"

	"energy/schema/chdb"
)

// InProcess returns the in-process ClickHouse 26.x engine and a fresh database on it built by
// the migrations (dropped when the test ends), for tests of statements only newer servers
// accept: with ENERGY_COMPAT_CHECK=1 (make test-compat) a missing engine fails the test;
// without, the test is skipped, as the other version-matrix checks are.
func InProcess(t testing.TB) (*chdb.Session, string) {
	t.Helper()
	if !compatEnabled() {
		t.Skipf("%s is not 1: run make test-compat", CompatEnv)
	}
	engine, err := compatEngine()
	if err != nil {
		t.Fatalf("ClickHouse 26.x: %v", err)
	}
	database := fmt.Sprintf("inprocess_%d", time.Now().UnixNano())
	if err := MigrateInProcess(engine, database); err != nil {
		t.Fatalf("ClickHouse 26.x: %v", err)
	}
	t.Cleanup(func() { _, _ = engine.Query("DROP DATABASE IF EXISTS "+database, "TabSeparated") })
	return engine, database
}

// Bind writes args into sql at each '?' as the driver binds them, for the in-process engine,
// which takes SQL text only.
func Bind(sql string, args ...any) (string, error) { return bindPositional(sql, args) }
