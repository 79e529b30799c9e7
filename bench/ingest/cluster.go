package main

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"energy/bench"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
)

// clusterOptions size the cluster run (make bench-cluster).
type clusterOptions struct {
	archives   int // archives per ingest measurement, the two kinds alternating
	uploaders  int // concurrent uploaders
	coldRuns   int // computed requests per request kind and store
	cachedRuns int // cached requests per request kind and store
	basePort   int // cluster nodes on basePort+1..+4 (native), +11..+14 (interserver)
	zkPort     int
}

// store names a store and its shape.
type store struct {
	name          string
	nodes, copies int
}

// ingestRun is one ingest measurement: a fixed number of archives through some energyd.
type ingestRun struct {
	store    string
	replicas int
	replay   *replayStats
}

// latencyRun is one request kind on one store.
type latencyRun struct {
	name         string
	cold, cached []time.Duration
}

// storeResult is everything measured on one store.
type storeResult struct {
	name    string
	nodes   int // ClickHouse servers
	copies  int // replicas holding each row
	ingest  []ingestRun
	latency []*latencyRun
	answers map[string][]byte // cached answer body per request kind, compared between stores
}

// runCluster is --cluster: on a single ClickHouse, then on a local cluster (2 shards × 2
// replicas and ZooKeeper), the ingest throughput of many concurrent archives (through one
// energyd, and on the cluster through two) and the consumption latency of a data set loaded
// into each store the same way.
func runCluster(ctx context.Context, o options) error {
	tmp, archives, cleanup, err := prepare(ctx, &o, "bench-cluster-")
	if err != nil {
		return err
	}
	defer cleanup()

	log.Printf("single node: starting ClickHouse")
	srv, err := server.StartLocal(ctx, filepath.Join(tmp, "single"))
	if err != nil {
		return err
	}
	single, version, err := measureStore(ctx, o, archives, store{"single node", 1, 1}, []string{srv.DSN("energy")}, "", filepath.Join(tmp, "single-energyd"))
	_ = srv.Stop()
	if err != nil {
		return fmt.Errorf("single node: %w", err)
	}

	log.Printf("cluster: starting ZooKeeper and 2 shards × 2 replicas (ports %d-%d, ZooKeeper %d)", o.cluster.basePort+1, o.cluster.basePort+14, o.cluster.zkPort)
	c, err := server.StartLocalCluster(ctx, filepath.Join(tmp, "cluster"), server.ClusterPorts{Base: o.cluster.basePort, ZooKeeper: o.cluster.zkPort})
	if err != nil {
		return err
	}
	defer c.Stop()
	// Two energyd replicas talk to nodes of different shards, as behind a load balancer.
	cluster, _, err := measureStore(ctx, o, archives, store{"cluster 2 × 2", 4, 2}, []string{c.DSN(0, "energy"), c.DSN(2, "energy")}, c.Name, filepath.Join(tmp, "cluster-energyd"))
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	for name, body := range single.answers {
		if !bytes.Equal(body, cluster.answers[name]) {
			return fmt.Errorf("%s: the cluster's answer differs from the single node's", name)
		}
	}
	md := clusterMarkdown(machineHeader(version, o), o, archives, single, cluster)
	fmt.Print(md)
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(o.out, []byte(md), 0o644)
}

// measureStore migrates the store, loads the dashboards' data set, measures ingest through
// one energyd and, when two DSNs are given, through two (one per DSN), then the consumption
// latency through an energyd with its cache and one without.
func measureStore(ctx context.Context, o options, archives []*benchArchive, st store, dsns []string, cluster, dir string) (*storeResult, string, error) {
	name := st.name
	db, err := schema.OpenWithTimeouts(ctx, dsns[0], cluster, loadTimeouts)
	if err != nil {
		return nil, "", err
	}
	defer db.Close()
	if err := db.Migrate(ctx, nil); err != nil {
		return nil, "", err
	}
	var version string
	if err := db.Conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return nil, "", err
	}
	reg := registry.New(db)
	log.Printf("%s: loading %d sites × one year", name, o.mixed.readSites)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: o.mixed.readSites, Year: readYear}, nil); err != nil {
		return nil, "", err
	}
	if err := putSites(ctx, reg); err != nil {
		return nil, "", err
	}
	upToken, _, err := reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "bench-cluster")
	if err != nil {
		return nil, "", err
	}
	readToken, _, err := reg.CreateToken(ctx, bench.Tenant, []string{"read"}, 24*time.Hour, "bench-cluster-reads")
	if err != nil {
		return nil, "", err
	}
	var clusterFlags []string
	if cluster != "" {
		clusterFlags = []string{"--clickhouse-cluster", cluster}
	}
	res := &storeResult{name: name, nodes: st.nodes, copies: st.copies, answers: map[string][]byte{}}
	for replicas := 1; replicas <= len(dsns); replicas++ {
		var apis []string
		var stops []func()
		for i := range replicas {
			api, stop, err := startEnergyd(ctx, o, filepath.Join(dir, fmt.Sprintf("ingest-%d-%d", replicas, i)), dsns[i], clusterFlags...)
			if err != nil {
				for _, s := range stops {
					s()
				}
				return nil, "", err
			}
			apis, stops = append(apis, api), append(stops, stop)
		}
		log.Printf("%s: %d archives through %d energyd, %d uploaders", name, o.cluster.archives, replicas, o.cluster.uploaders)
		r, err := ingestArchives(ctx, apis, upToken, archives, o.cluster.archives, o.cluster.uploaders)
		for _, s := range stops {
			s()
		}
		if err != nil {
			return nil, "", err
		}
		res.ingest = append(res.ingest, ingestRun{store: name, replicas: replicas, replay: r})
	}
	log.Printf("%s: consumption latency", name)
	cachedAPI, stopCached, err := startEnergyd(ctx, o, filepath.Join(dir, "reads-cached"), dsns[0], clusterFlags...)
	if err != nil {
		return nil, "", err
	}
	defer stopCached()
	coldAPI, stopCold, err := startEnergyd(ctx, o, filepath.Join(dir, "reads-cold"), dsns[0], append(clusterFlags, "--cache-entries", "0")...)
	if err != nil {
		return nil, "", err
	}
	defer stopCold()
	d := &dashboards{client: &http.Client{Timeout: time.Minute}, token: readToken}
	rng := rand.New(rand.NewPCG(1, uint64(o.mixed.readSites)))
	fixed := bench.SiteID(o.mixed.readSites / 2)
	for _, unit := range []string{"DAYS", "MONTHS", "HOURS"} {
		lr := &latencyRun{name: unit}
		body, err := d.expect(cachedAPI+yearPath(fixed, unit), "MISS") // fills the cache
		if err != nil {
			return nil, "", err
		}
		res.answers[unit] = body
		for range o.cluster.coldRuns {
			start := time.Now()
			if _, err := d.expect(coldAPI+yearPath(bench.SiteID(rng.IntN(o.mixed.readSites)), unit), "MISS"); err != nil {
				return nil, "", err
			}
			lr.cold = append(lr.cold, time.Since(start))
		}
		for range o.cluster.cachedRuns {
			start := time.Now()
			if _, err := d.expect(cachedAPI+yearPath(fixed, unit), "HIT"); err != nil {
				return nil, "", err
			}
			lr.cached = append(lr.cached, time.Since(start))
		}
		res.latency = append(res.latency, lr)
	}
	return res, version, nil
}

// yearPath is one site's consumption over the dashboards' year at unit steps.
func yearPath(site, unit string) string {
	return fmt.Sprintf("/v2/sites/%s/fluids/elec/consumptions?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&stepUnit=%s", site, readYear, readYear+1, unit)
}

// expect sends one read and fails unless it is a 200 with the X-Cache wanted.
func (d *dashboards) expect(url, cache string) ([]byte, error) {
	st, b, hdr, err := d.get(url, d.token)
	if err != nil {
		return nil, err
	}
	if st != http.StatusOK || hdr.Get("X-Cache") != cache {
		return nil, fmt.Errorf("%s: %d, X-Cache %q (want 200, %s): %s", url, st, hdr.Get("X-Cache"), cache, trim(b))
	}
	return b, nil
}

// ingestArchives submits n archives (the kinds alternating) through the energyd of apis in
// turn, uploaders at a time, each waiting for its job; every job must end DONE with every
// operation OK.
func ingestArchives(ctx context.Context, apis []string, token string, archives []*benchArchive, n, uploaders int) (*replayStats, error) {
	r := &replayStats{first: time.Now()}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range uploaders {
		wg.Go(func() {
			for k := range next {
				a := archives[k%len(archives)]
				j, err := submitAndWait(ctx, apis[k%len(apis)], token, *a)
				mu.Lock()
				r.record(a, j.elapsed, time.Now(), err)
				mu.Unlock()
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
	if r.failed > 0 {
		return r, fmt.Errorf("%d of %d archives failed: %s", r.failed, n, strings.Join(r.errs, "; "))
	}
	return r, nil
}

func clusterMarkdown(machineLines string, o options, archives []*benchArchive, single, cluster *storeResult) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Cluster against single node\n\n")
	w("`make bench-cluster` (`go run ./bench/ingest --cluster`): the same work on one ClickHouse and on the local cluster (2 shards × 2 replicas and ZooKeeper, all on this machine), each launched by the benchmark.\n\n")
	w("%s", machineLines)
	w("- Ingest: %d archives, the two largest the limits allow alternating (%s), %d uploaders at once, each posting one and waiting for its job `DONE` (every operation OK); "+
		"with two energyd the archives go to them in turn (each talks to a node of another shard). Rates run from the first POST to the last job `DONE`.\n",
		o.cluster.archives, archiveNames(archives), o.cluster.uploaders)
	w("- Consumption: %s sites × one year (%d) of the consumption benchmark's generator loaded into each store; one site's year at DAYS, MONTHS and HOURS (the 1,200-hour window); "+
		"computed: %d requests, each on a random site, through an energyd with `--cache-entries 0`; cached: %d requests of one site. The cached answers of the two stores were compared: byte-identical.\n\n",
		thousandsInt(o.mixed.readSites), readYear, o.cluster.coldRuns, o.cluster.cachedRuns)
	w("| store | energyd | archives | rows | first POST → last DONE | rows/s | rows written per ClickHouse node /s | archives/s | POST → DONE p50 | POST → DONE p99 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range []*storeResult{single, cluster} {
		for _, in := range s.ingest {
			r := in.replay
			w("| %s | %d | %d | %s | %.2f s | %s | %s | %.2f | %.2f s | %.2f s |\n", s.name, in.replicas, r.done, thousands(float64(r.rows)), r.last.Sub(r.first).Seconds(),
				thousands(r.rowsPerSecond()), thousands(r.rowsPerSecond()*float64(s.copies)/float64(s.nodes)), r.archivesPerSecond(),
				bench.Percentile(r.jobTimes, 50).Seconds(), bench.Percentile(r.jobTimes, 99).Seconds())
		}
	}
	w("\n| request | single node computed p50 / p99 | cluster computed p50 / p99 | cluster / single computed p50 | single node cached p50 / p99 | cluster cached p50 / p99 |\n|---|---:|---:|---:|---:|---:|\n")
	for k, sl := range single.latency {
		cl := cluster.latency[k]
		label := sl.name + ", 1 year"
		if sl.name == "HOURS" {
			label += " (window of 1,200)"
		}
		w("| %s | %s / %s | %s / %s | %.2f× | %s / %s | %s / %s |\n", label,
			msOf(bench.Percentile(sl.cold, 50)), msOf(bench.Percentile(sl.cold, 99)), msOf(bench.Percentile(cl.cold, 50)), msOf(bench.Percentile(cl.cold, 99)),
			float64(bench.Percentile(cl.cold, 50))/float64(max(bench.Percentile(sl.cold, 50), time.Microsecond)),
			msOf(bench.Percentile(sl.cached, 50)), msOf(bench.Percentile(sl.cached, 99)), msOf(bench.Percentile(cl.cached, 50)), msOf(bench.Percentile(cl.cached, 99)))
	}
	w("\nOn this machine the cluster's four ClickHouse servers, ZooKeeper, the energyd and the benchmark share the same cores: the cluster cannot be faster than the single node here, " +
		"and the figures show its overhead (replication, quorum inserts of the archives, ZooKeeper) rather than the capacity of a cluster of machines, where each node has its own cores. " +
		"Each row is stored on the 2 replicas of its shard: the per-node column is the write rate each of the 4 ClickHouse servers sustained (rows/s × 2 / 4), the figure to scale by the nodes of a real cluster.\n")
	w("\nReproduce: `make bench-cluster` (flags: `go run ./bench/ingest --help`).\n")
	return b.String()
}
