package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
)

// TestLocalClusterServesReplicatedDDL checks the launched 2 × 2 cluster: each node sees the
// four replicas of the cluster and has its own shard and replica macros.
func TestLocalClusterServesReplicatedDDL(t *testing.T) {
	c := chtest.NeedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range c.Nodes {
		db, err := schema.Open(ctx, c.DSN(i, "default"), c.Name)
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM system.clusters WHERE cluster = ?", c.Name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 4 {
			t.Errorf("node %d sees %d replicas in cluster %s, want 4", i+1, n, c.Name)
		}
		macros := map[string]string{}
		rows, err := db.Conn.Query(ctx, "SELECT macro, substitution FROM system.macros")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			macros[k] = v
		}
		rows.Close()
		if want := []string{"01", "01", "02", "02"}[i]; macros["shard"] != want {
			t.Errorf("node %d shard macro %q, want %q", i+1, macros["shard"], want)
		}
		if want := []string{"ch-1", "ch-2", "ch-3", "ch-4"}[i]; macros["replica"] != want {
			t.Errorf("node %d replica macro %q, want %q", i+1, macros["replica"], want)
		}
		db.Close()
	}
}

// engines returns table → engine of database on one node.
func engines(t *testing.T, ctx context.Context, db *schema.DB, database string) map[string]string {
	t.Helper()
	rows, err := db.Conn.Query(ctx, "SELECT name, engine FROM system.tables WHERE database = ?", database)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, e string
		if err := rows.Scan(&n, &e); err != nil {
			t.Fatal(err)
		}
		out[n] = e
	}
	return out
}

// TestClusterMigrationsTwiceAndConcurrently applies the migrations from two nodes at once, then
// again, and checks every node's tables: readings as Replicated local tables under a
// Distributed table, the registry replicated whole on every node, every version recorded once.
func TestClusterMigrationsTwiceAndConcurrently(t *testing.T) {
	c := chtest.NeedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dsn := chtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	dbs := make([]*schema.DB, len(c.Nodes))
	for i := range c.Nodes {
		if dbs[i], err = schema.Open(ctx, c.DSN(i, name), c.Name); err != nil {
			t.Fatal(err)
		}
		defer dbs[i].Close()
	}
	for round := 1; round <= 2; round++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for k, node := range []int{0, 2} { // one node of each shard, as two energyd would
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = dbs[node].Migrate(ctx, nil)
			}()
		}
		wg.Wait()
		for k, err := range errs {
			if err != nil {
				t.Fatalf("round %d, migration %d: %v", round, k+1, err)
			}
		}
	}
	all, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, db := range dbs {
		got := engines(t, ctx, db, name)
		want := map[string]string{
			"elec_indexes_local": "ReplicatedReplacingMergeTree", "elec_indexes": "Distributed",
			"load_curve_points_local": "ReplicatedReplacingMergeTree", "load_curve_points": "Distributed",
			"pods_local": "ReplicatedReplacingMergeTree", "pods": "Distributed",
			"sites": "ReplicatedReplacingMergeTree", "api_tokens": "ReplicatedReplacingMergeTree",
			"tariffs": "ReplicatedReplacingMergeTree", "jobs": "ReplicatedReplacingMergeTree",
			"schema_migrations": "ReplicatedReplacingMergeTree",
		}
		for table, engine := range want {
			if got[table] != engine {
				t.Errorf("node %d: table %s has engine %q, want %q", i+1, table, got[table], engine)
			}
		}
		if _, ok := got["sites_local"]; ok {
			t.Errorf("node %d: sites is sharded (sites_local exists); the registry belongs on every node", i+1)
		}
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM schema_migrations FINAL").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if int(n) != len(all) {
			t.Errorf("node %d: schema_migrations holds %d versions, want %d", i+1, n, len(all))
		}
	}
}

// TestClusterKeepsASiteOnOneShard writes readings of several sites through node 1's Distributed
// table and finds each site's rows on the shard of cityHash64(tenant_id, site_id) only, on both
// of its replicas, and whole through every node's Distributed table; the shard computed in Go
// (schema.SiteHash, the Distributed table's slots) is that shard, and ReadSite reads the
// site's rows whole from it.
func TestClusterKeepsASiteOnOneShard(t *testing.T) {
	c := chtest.NeedCluster(t)
	db := chtest.DB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sites := []string{"S1", "S2", "S3", "S4", "S5", "S6", "", "site-0123456789", strings.Repeat("x", 17),
		"Zürich-Ω", strings.Repeat("s", 64), strings.Repeat("long-site-", 30)}
	for i := range 20 {
		sites = append(sites, fmt.Sprintf("PDL-%014d", i*7919))
	}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range sites {
		for d := range 3 {
			if err := b.Append("acme", s, "P-"+s, ts.AddDate(0, 0, d), "REAL", ts, "1", int64(1000*d), "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	nodes := make([]*schema.DB, len(c.Nodes))
	for i := range c.Nodes {
		var err error
		if nodes[i], err = schema.Open(ctx, c.DSN(i, db.Name), c.Name); err != nil {
			t.Fatal(err)
		}
		defer nodes[i].Close()
	}
	for _, s := range sites {
		var shardIdx uint64 // 0-based shard of the site, as the Distributed table computes it
		if err := db.Conn.QueryRow(ctx, "SELECT toUInt64(cityHash64('acme', ?) % 2)", s).Scan(&shardIdx); err != nil {
			t.Fatal(err)
		}
		if got := schema.NewShardSlots([]uint32{1, 1}).Shard(schema.SiteHash("acme", s)); uint64(got) != shardIdx {
			t.Errorf("site %q: shard %d computed in Go, ClickHouse put it on shard %d", s, got+1, shardIdx+1)
		}
		r := db.ReadSite("acme", s)
		var read uint64
		if err := r.Conn.QueryRow(ctx, "SELECT count() FROM "+r.Table("elec_indexes")+" WHERE tenant_id = 'acme' AND site_id = ?", s).Scan(&read); err != nil {
			t.Fatal(err)
		}
		if read != 3 || r.Table("elec_indexes") != "elec_indexes_local" {
			t.Errorf("site %q: ReadSite reads %d rows from %s, want 3 from elec_indexes_local", s, read, r.Table("elec_indexes"))
		}
		for i, n := range nodes {
			var local, all uint64
			deadline := time.Now().Add(10 * time.Second)
			for {
				if err := n.Conn.QueryRow(ctx, "SELECT count() FROM elec_indexes_local WHERE tenant_id = 'acme' AND site_id = ?", s).Scan(&local); err != nil {
					t.Fatal(err)
				}
				// The shard's second replica fetches the part a moment later.
				if local == 3 || uint64(i/2) != shardIdx || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			want := uint64(0)
			if uint64(i/2) == shardIdx {
				want = 3
			}
			if local != want {
				t.Errorf("site %s (shard %d): node %d holds %d rows locally, want %d", s, shardIdx+1, i+1, local, want)
			}
			if err := n.Conn.QueryRow(ctx, "SELECT count() FROM elec_indexes FINAL WHERE tenant_id = 'acme' AND site_id = ?", s).Scan(&all); err != nil {
				t.Fatal(err)
			}
			if all != 3 {
				t.Errorf("site %s: node %d reads %d rows through the Distributed table, want 3", s, i+1, all)
			}
		}
	}
}
