package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"energy/schema"
)

// An unreachable ClickHouse is waited for (logged, retried) until energyd is stopped; a DSN
// that cannot work fails at once.
func TestOpenAndMigrateWaitsForClickHouse(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	var reasons []string
	waiting := func(r string) { reasons = append(reasons, r) }
	_, err := openAndMigrate(ctx, "clickhouse://127.0.0.1:1/energy", "", schema.DefaultTimeouts, log, waiting)
	if err == nil || !strings.Contains(err.Error(), "stopped while waiting for ClickHouse") {
		t.Fatalf("error %v, want the stop while waiting", err)
	}
	if time.Since(start) < time.Second {
		t.Fatalf("gave up after %v, before being stopped", time.Since(start))
	}
	if n := strings.Count(logs.String(), "ClickHouse does not answer yet"); n < 1 {
		t.Fatalf("no retry logged: %s", logs.String())
	}
	if len(reasons) < 2 || reasons[0] != "the data store is not reachable yet" {
		t.Fatalf("reasons told to the listeners: %q", reasons)
	}

	start = time.Now()
	if _, err := openAndMigrate(context.Background(), "clickhouse://127.0.0.1:9000/energy?dial_timeout=soon", "", schema.DefaultTimeouts, log, waiting); err == nil || time.Since(start) > time.Second {
		t.Fatalf("bad DSN: %v after %v, want an immediate error", err, time.Since(start))
	}
}
