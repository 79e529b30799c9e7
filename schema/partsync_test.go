package schema_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"energy/schema"
)

// The launched server deletes the parts merged away within seconds, not 8 minutes: the part
// directories on disk, which a server loads at each start, stay as few as the live parts.
func TestMergedAwayPartsLeaveTheDiskWithinSeconds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := schema.StartLocal(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	db, err := schema.Open(ctx, srv.DSN("parts"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Conn.Exec(ctx, "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x"); err != nil {
		t.Fatal(err)
	}
	const inserts = 20
	for i := range inserts {
		if err := schema.InsertRow(ctx, db, "INSERT INTO t (x)", uint8(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Conn.Exec(ctx, "OPTIMIZE TABLE t FINAL"); err != nil {
		t.Fatal(err)
	}
	tableDir := filepath.Join(srv.Dir, "data", "data", "parts", "t")
	partDirs := func() int {
		entries, err := os.ReadDir(tableDir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() && e.Name() != "detached" {
				n++
			}
		}
		return n
	}
	if n := partDirs(); n <= 1 {
		t.Fatalf("%d part directories right after %d inserts and a merge, want the merged-away ones still there", n, inserts)
	}
	deadline := time.Now().Add(40 * time.Second) // 15 s of lifetime, cleanups every 5 s, a loaded machine
	for partDirs() > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d part directories on disk 40 s after the merge, want 1 (the merged part)", partDirs())
		}
		time.Sleep(500 * time.Millisecond)
	}
	var rows uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM t").Scan(&rows); err != nil || rows != inserts {
		t.Fatalf("%d rows (%v), want %d", rows, err, inserts)
	}
}
