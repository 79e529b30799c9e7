package server

import (
	"context"
	"testing"
)

// TestDSNOrLocalKeepsAGivenDSN: a given DSN is used as it is and nothing is launched (the
// launching branch runs in energyd's tests, which start their embedded ClickHouse).
func TestDSNOrLocalKeepsAGivenDSN(t *testing.T) {
	dir := t.TempDir()
	dsn, srv, err := DSNOrLocal(context.Background(), "clickhouse://10.0.0.1:9000/energy", dir, "other")
	if err != nil || srv != nil || dsn != "clickhouse://10.0.0.1:9000/energy" {
		t.Fatalf("DSNOrLocal = %q, %v, %v; want the given DSN, no server", dsn, srv, err)
	}
}
