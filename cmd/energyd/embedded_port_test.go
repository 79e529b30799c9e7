package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"energy/schema/server"
)

// --clickhouse-port puts the embedded ClickHouse on that port: energyd gets ready on it and
// records it for energyctl.
func TestEmbeddedClickHouseOnTheChosenPort(t *testing.T) {
	_, port, _ := net.SplitHostPort(freeAddr(t))
	e := startEmbedded(t, "--clickhouse-port", port)
	dsn, err := server.RecordedDSN(filepath.Join(e.dir, "clickhouse"))
	if err != nil || !strings.Contains(dsn, "127.0.0.1:"+port+"/") {
		t.Fatalf("recorded DSN %q (%v), want port %s", dsn, err, port)
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+port); err != nil {
		t.Fatalf("nothing listens on the chosen port %s: %v", port, err)
	} else {
		c.Close()
	}
}
