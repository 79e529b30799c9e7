package server_test

import (
	"context"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/server"
)

// A launched server records its DSN for energyctl, answers, and once stopped is gone with its
// record; a pool still open on it then fails with an error classified as unavailable.
func TestLauncherStartsAndStops(t *testing.T) {
	if _, _, err := server.FindServerBinary(); err != nil {
		t.Fatal("the launcher needs a clickhouse binary: ", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := server.StartLocal(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := server.RecordedDSN(dir)
	if err != nil || recorded != s.DSN("default") {
		t.Fatalf("recorded DSN %q (%v), want %q", recorded, err, s.DSN("default"))
	}
	db, err := schema.Open(ctx, s.DSN("launcher"), "")
	if err != nil {
		t.Fatal(err)
	}
	var one uint8
	if err := db.Conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	defer db.Close()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	default:
		t.Fatal("server still running after Stop")
	}
	if _, err := server.RecordedDSN(dir); err == nil {
		t.Fatal("endpoint file left after Stop")
	}
	err = db.Ping(ctx)
	if err == nil {
		t.Fatal("ping succeeded after Stop")
	}
	if !schema.IsUnavailable(err) {
		t.Fatalf("error after stop not classified as unavailable: %v", err)
	}
}
