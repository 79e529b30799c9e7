package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
	"energy/schema/server"
)

// On a cluster (2 shards × 2 replicas) with two energyd replicas that both cached answers of
// S1 and S2: the erasure asked through A is DONE, seen through B; every ClickHouse node holds 0
// rows of S1 in every table with a site_id column; neither replica holds a cached answer of S1
// any more (its consumption cache holds S2's only); both answer 404 SITE_NOT_FOUND where they
// had cached answers; S2 keeps its readings.
func TestErasureOnTwoReplicas(t *testing.T) {
	c := chtest.NeedCluster(t)
	u, err := url.Parse(chtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	bin := buildEnergyd(t)
	a := startEnergydWith(t, bin, "--clickhouse-dsn", c.DSN(1, name), "--clickhouse-cluster", c.Name, "--data-dir", t.TempDir())
	b := startEnergydWith(t, bin, "--clickhouse-dsn", c.DSN(3, name), "--clickhouse-cluster", c.Name, "--data-dir", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := schema.Open(ctx, c.DSN(1, name), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	secret, _, err := registry.New(db).CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := replicaClient{t, a, secret}, replicaClient{t, b, secret}
	for _, site := range []string{"S1", "S2"} {
		if st, _, body := ra.do("PUT", "/v2/sites/"+site, "application/json", []byte(`{"contact": {"email": "a@example.org"}}`)); st != http.StatusOK {
			t.Fatalf("PUT site %s: %d %s", site, st, body)
		}
	}
	readings := func(site string) string {
		return smartElecIndexes(site, [3]any{"2023-12-31T23:00:00Z", 1000, 5000}, [3]any{"2024-01-01T23:00:00Z", 1500, 6000}, [3]any{"2024-01-02T23:00:00Z", 2200, 7500})
	}
	for _, site := range []string{"S1", "S2"} {
		if st, ok := ra.waitJob(ra.submit(site+".json", readings(site))); st != "DONE" || ok != 3 {
			t.Fatalf("load %s: %s with %d OK", site, st, ok)
		}
	}
	path := "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-04T00:00:00&stepUnit=DAYS"
	for _, r := range []replicaClient{ra, rb} {
		for _, p := range []string{path, strings.Replace(path, "S1", "S2", 1)} {
			for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				if got, cache := r.dailyWh(p); fmt.Sprint(got) != "[1500 2200 -1]" {
					t.Fatalf("through %s: %v", r.d.addr, got)
				} else if cache == "HIT" {
					break
				}
				if time.Since(start) > 5*time.Second {
					t.Fatalf("through %s: no cached answer after 5 s", r.d.addr)
				}
			}
		}
		if n := metric(t, r, "energy_consumption_cache_entries"); n != "2" {
			t.Fatalf("through %s: %s cached consumption answers, want 2 (S1 and S2)", r.d.addr, n)
		}
	}
	if n := siteRowsOnEveryNode(t, c, name, "S1"); n == 0 {
		t.Fatal("no row of S1 before the erasure")
	}

	st, _, body := ra.do("DELETE", "/v2/sites/S1", "", nil)
	if st != http.StatusAccepted {
		t.Fatalf("DELETE through A: %d %s", st, body)
	}
	var accepted struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal(body, &accepted); err != nil {
		t.Fatal(err)
	}
	erasurePath := accepted.Links.Self.Href[strings.Index(accepted.Links.Self.Href, "/v2/"):]
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		st, _, body := rb.do("GET", erasurePath, "", nil)
		var e struct{ State string }
		if st == http.StatusOK && json.Unmarshal(body, &e) == nil && e.State == "DONE" {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("erasure through B after 1 min: %d %s", st, body)
		}
	}
	if n := siteRowsOnEveryNode(t, c, name, "S1"); n != 0 {
		t.Fatalf("%d rows of S1 left on the nodes", n)
	}
	if n := siteRowsOnEveryNode(t, c, name, "S2"); n == 0 {
		t.Fatal("the rows of S2 were erased with S1's")
	}
	// No cached answer of S1 is held on either replica: A dropped it while erasing, B once it
	// read the erasure DONE (every second). S2's answer stays in memory (superseded: the tenant's
	// version moved).
	for _, r := range []replicaClient{ra, rb} {
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			n := metric(t, r, "energy_consumption_cache_entries")
			if n == "1" {
				break
			}
			if time.Since(start) > 3*time.Second {
				t.Fatalf("through %s 3 s after the erasure: %s cached consumption answers, want 1 (S2's only)", r.d.addr, n)
			}
		}
	}
	for _, r := range []replicaClient{ra, rb} {
		// B drops its cached answer once it has seen the tenant's new data version (its watch
		// interval) and its directory has lost the site.
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			st, _, body := r.do("GET", path, "", nil)
			if st == http.StatusNotFound && strings.Contains(string(body), "SITE_NOT_FOUND") {
				break
			}
			if time.Since(start) > 3*time.Second {
				t.Fatalf("through %s 3 s after the erasure: %d %s, want 404 SITE_NOT_FOUND", r.d.addr, st, body)
			}
		}
	}
}

// siteRowsOnEveryNode counts the site's rows on every ClickHouse node of the cluster, in every
// local table with a site_id column.
func siteRowsOnEveryNode(t *testing.T, c *server.LocalCluster, database, site string) uint64 {
	t.Helper()
	ctx := context.Background()
	var total uint64
	for i := range c.Nodes {
		db, err := schema.Open(ctx, c.DSN(i, database), "")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.Conn.Query(ctx, `SELECT c.table FROM (SELECT table FROM system.columns WHERE database = ? AND name = 'site_id') AS c
			ANY INNER JOIN (SELECT name AS table, engine FROM system.tables WHERE database = ?) AS t USING table WHERE t.engine LIKE '%MergeTree'`, database, database)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		rows.Close()
		for _, n := range names {
			var k uint64
			if err := db.Conn.QueryRow(ctx, "SELECT count() FROM `"+n+"` WHERE site_id = ?", site).Scan(&k); err != nil {
				t.Fatal(err)
			}
			total += k
		}
		db.Close()
	}
	return total
}
