package server_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/server"
)

// A ClickHouse left running on the data dir by a launcher that died (what an energyd killed
// with SIGKILL leaves behind) is killed at once by the next start instead of being waited for;
// the data it held is there. A server whose launcher still runs is never touched.
func TestStartReclaimsAServerLeftByADeadLauncher(t *testing.T) {
	bin, prefix, err := server.FindServerBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	srv, err := server.StartLocal(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := schema.Open(ctx, srv.DSN("kept"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Conn.Exec(ctx, "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x"); err != nil {
		t.Fatal(err)
	}
	b, _ := db.Conn.PrepareBatch(ctx, "INSERT INTO t (x)")
	_ = b.Append(uint8(7))
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}

	// The same server again, started by a shell that exits at once: an orphan, as after a
	// launcher's death.
	port := srv.Port
	args := append(append([]string{}, prefix...), "--config-file="+filepath.Join(srv.Dir, "config.xml"), "--",
		"--path="+filepath.Join(srv.Dir, "data")+"/", "--tcp_port="+strconv.Itoa(port))
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + a + "'"
	}
	out, err := exec.Command("sh", "-c", fmt.Sprintf("setsid '%s' %s >/dev/null 2>&1 & echo $!", bin, strings.Join(quoted, " "))).Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() { _ = syscall.Kill(orphan, syscall.SIGKILL) })
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orphan server (pid %d) does not answer: %v", orphan, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	began := time.Now()
	srv2, err := server.StartLocal(ctx, dir)
	if err != nil {
		t.Fatalf("start beside an orphan server: %v", err)
	}
	defer srv2.Stop()
	took := time.Since(began)
	if srv2.Reclaimed != orphan {
		t.Errorf("Reclaimed = %d, want the orphan's pid %d", srv2.Reclaimed, orphan)
	}
	if err := syscall.Kill(orphan, 0); err == nil {
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", orphan)); !strings.Contains(string(st), ") Z ") {
			t.Errorf("the orphan server %d still runs", orphan)
		}
	}
	// Waiting for the orphan would fail: it never stops by itself.
	if took > 15*time.Second {
		t.Errorf("start took %s", took)
	}
	db, err = schema.Open(ctx, srv2.DSN("kept"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM t WHERE x = 7").Scan(&n); err != nil || n != 1 {
		t.Fatalf("data after the reclaim: %d rows, %v", n, err)
	}
	t.Logf("started in %s beside an orphan server, which was killed", took.Round(time.Millisecond))

	// srv2's launcher (this process) runs: a second start on the directory leaves it alone.
	if _, err := server.StartLocal(ctx, dir); err == nil {
		t.Fatal("a second server started on a directory in use")
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("the running server was disturbed: %v", err)
	}
}
