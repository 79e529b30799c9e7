package schema_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"energy/schema"
	"energy/schema/chtest"
)

// A write whose context has ended is never reported as stored: the insert leaves its row out,
// and its caller must hear so whichever of the two outcomes its wait sees first (a job whose
// DONE was reported stored while it was not had its archive deleted from the spool).
func TestGroupInsertNeverReportsALeftOutRowAsStored(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	if err := db.Conn.Exec(ctx, "CREATE TABLE group_insert_probe (k String, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY k"); err != nil {
		t.Fatal(err)
	}
	g := schema.NewGroupInsert(db, "INSERT INTO group_insert_probe (k, version)", nil)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for i := range 300 {
		if err := g.Write(ended, 0, fmt.Sprintf("left-out-%d", i)); !errors.Is(err, context.Canceled) {
			t.Fatalf("write %d with an ended context: %v, want context.Canceled", i, err)
		}
	}
	if err := g.Write(ctx, 0, "stored"); err != nil {
		t.Fatal(err)
	}
	var keys []string
	rows, err := db.Conn.Query(ctx, "SELECT k FROM group_insert_probe ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "stored" {
		t.Fatalf("rows stored: %v, want only the write whose context was live", keys)
	}
}
