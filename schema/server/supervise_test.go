package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/server"
)

// A killed embedded server is started again on the same port with its data, and energyctl's
// endpoint file still leads to it; when it cannot be started, Health says so after the
// configured number of attempts, and clears once a restart succeeds.
func TestSupervisorRestartsAKilledServer(t *testing.T) {
	if _, _, err := server.FindServerBinary(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	srv, err := server.StartLocal(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	sup := server.Supervise(srv, server.Supervision{CheckEvery: 100 * time.Millisecond, MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, FailedAfter: 2},
		slog.New(slog.NewJSONHandler(&logs, nil)))
	defer sup.Stop()

	db, err := schema.Open(ctx, srv.DSN("kept"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Conn.Exec(ctx, "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x"); err != nil {
		t.Fatal(err)
	}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO t (x)")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []uint8{1, 2, 3} {
		_ = b.Append(x)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}

	// Kill -9: restarted on the same port, the same pool works again, the data is there.
	port := srv.Port
	_ = syscall.Kill(srv.Pid(), syscall.SIGKILL)
	waitFor(t, 30*time.Second, "a restart", func() bool { return sup.Restarts() == 1 })
	if got := sup.Server().Port; got != port {
		t.Fatalf("restarted on port %d, want the same port %d", got, port)
	}
	var n uint64
	waitFor(t, 10*time.Second, "the pool to reconnect", func() bool {
		return db.Conn.QueryRow(ctx, "SELECT count() FROM t").Scan(&n) == nil
	})
	if n != 3 {
		t.Fatalf("%d rows after the restart, want 3", n)
	}
	if dsn, err := server.RecordedDSN(dir); err != nil || dsn != srv.DSN("default") {
		t.Fatalf("endpoint file after the restart: %q %v, want %q", dsn, err, srv.DSN("default"))
	}
	if !strings.Contains(logs.String(), `"msg":"embedded ClickHouse restarted"`) {
		t.Fatalf("no restart log line:\n%s", logs.String())
	}
	if err := sup.Health(); err != nil {
		t.Fatalf("health after a successful restart: %v", err)
	}

	// A server that cannot start (its configuration broken): Health fails after 2 attempts.
	cfg := filepath.Join(dir, "config.xml")
	good, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("<yandex><broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(sup.Server().Pid(), syscall.SIGKILL)
	waitFor(t, 30*time.Second, "Health to report the lost server", func() bool { return sup.Health() != nil })
	if msg := sup.Health().Error(); !strings.Contains(msg, "cannot be restarted") {
		t.Fatalf("health: %s", msg)
	}
	if err := os.WriteFile(cfg, good, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the second restart", func() bool { return sup.Restarts() == 2 })
	if err := sup.Health(); err != nil {
		t.Fatalf("health once restarted: %v", err)
	}
}

// A frozen server (SIGSTOP) that stays silent past the stall limit is killed and restarted.
func TestSupervisorRestartsAFrozenServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := server.StartLocal(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sup := server.Supervise(srv, server.Supervision{CheckEvery: 100 * time.Millisecond, StallLimit: time.Second}, slog.New(slog.DiscardHandler))
	defer sup.Stop()
	_ = syscall.Kill(srv.Pid(), syscall.SIGSTOP)
	start := time.Now()
	waitFor(t, 30*time.Second, "the frozen server to be replaced", func() bool { return sup.Restarts() == 1 })
	if took := time.Since(start); took < time.Second {
		t.Fatalf("replaced after %v, before the 1-s stall limit", took)
	}
}

func waitFor(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(within); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, within)
		}
	}
}

// syncBuffer is a log destination that the supervisor's goroutine writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
