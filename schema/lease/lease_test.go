package lease

import (
	"context"
	"os"
	"testing"
	"time"

	"energy/schema/chtest"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// A claims work nobody holds and wins; B's later claim wins over A's (the latest lease is the
// one that counts), and the lease read back is B's, expiring after the TTL rounded up to the
// second; an id without a lease reads as none.
func TestTheLaterClaimWins(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	a, b := New(db, 2*time.Second), New(db, 2*time.Second)
	key := []Key{{TenantID: "acme", ID: "erasure-1"}}
	if won, err := a.Claim(ctx, key); err != nil || len(won) != 1 {
		t.Fatalf("A's claim: %v %v, want won", won, err)
	}
	before := time.Now().Truncate(time.Second)
	if won, err := b.Claim(ctx, key); err != nil || len(won) != 1 {
		t.Fatalf("B's later claim: %v %v, want won", won, err)
	}
	cur, err := a.Current(ctx, []string{"erasure-1", "unknown"})
	if err != nil {
		t.Fatal(err)
	}
	x, ok := cur["erasure-1"]
	if !ok || x.Owner != b.Owner || x.Owner == a.Owner || len(cur) != 1 {
		t.Fatalf("leases %+v, want B's (%s) only", cur, b.Owner)
	}
	if x.Expires.Before(before.Add(2*time.Second)) || x.Expires.After(time.Now().Add(3*time.Second)) {
		t.Fatalf("lease expires %v, want 2 to 3 s after B's claim", x.Expires)
	}
}
