package schema_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
)

// siteHashCases covers every length class of CityHash64 (0, 1-3, 4-8, 9-16, 17-32, 33-64, more)
// and non-ASCII bytes.
var siteHashCases = [][2]string{
	{"acme", "S1"}, {"", ""}, {"a", "b"}, {"tenant-ab", "site-0123456789"}, {"t", strings.Repeat("x", 17)},
	{"électricité", "Zürich-Ω"}, {strings.Repeat("t", 40), strings.Repeat("s", 64)}, {"acme", strings.Repeat("long-site-", 30)},
}

// TestSiteHashIsClickHouses compares SiteHash with the server's cityHash64(tenant, site).
func TestSiteHashIsClickHouses(t *testing.T) {
	db := chtest.DB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range siteHashCases {
		var want uint64
		if err := db.Conn.QueryRow(ctx, "SELECT cityHash64(?, ?)", c[0], c[1]).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := schema.SiteHash(c[0], c[1]); got != want {
			t.Errorf("SiteHash(%q, %q) = %d, ClickHouse says %d", c[0], c[1], got, want)
		}
	}
}

func TestShardSlotsFollowWeights(t *testing.T) {
	s := schema.NewShardSlots([]uint32{1, 2})
	for key, want := range []int{0, 1, 1, 0, 1, 1} {
		if got := s.Shard(uint64(key)); got != want {
			t.Errorf("key %d: shard %d, want %d", key, got, want)
		}
	}
}
