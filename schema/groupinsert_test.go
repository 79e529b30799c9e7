package schema_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	schematables "energy/schema/tables"
)

// A write whose context has ended is never reported as stored: the insert leaves its row out,
// and its caller must hear so whichever of the two outcomes its wait sees first (a job whose
// DONE was reported stored while it was not had its archive deleted from the spool).
func TestGroupInsertNeverReportsALeftOutRowAsStored(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	g := schema.NewGroupInsert(db, "INSERT INTO "+schematables.JobLeases+" (tenant_id, job_id, owner, expires_ts, version)", nil)
	expires := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for i := range 300 {
		if err := g.Write(ended, 0, "acme", fmt.Sprintf("left-out-%d", i), "me", expires); !errors.Is(err, context.Canceled) {
			t.Fatalf("write %d with an ended context: %v, want context.Canceled", i, err)
		}
	}
	if err := g.Write(ctx, 0, "acme", "stored", "me", expires); err != nil {
		t.Fatal(err)
	}
	var keys []string
	rows, err := db.Conn.Query(ctx, "SELECT job_id FROM "+schematables.JobLeases+" ORDER BY job_id")
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
