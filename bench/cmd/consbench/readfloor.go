package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"energy/bench"
	"energy/schema"
	"energy/schema/tables"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// The read floor (make bench-read-floor): what one site's read costs ClickHouse whatever its
// size, measured on the consumption benchmark's data set. Each kind of read below runs in
// interleaved rounds on random sites; system.query_log gives the server's own duration and read
// rows, the client the time until the last row is received through clickhouse-go. The daily
// energy table is built for the measurement (and dropped after it): the layout a pre-computed
// answer would read.

// floorRead is one kind of read of the measurement.
type floorRead struct {
	name string
	sql  string
	args func(site string, from, to time.Time) []any
}

const dailyEnergyTable = "bench_read_floor_daily_energy"

func floorReads() []floorRead {
	site := func(site string, from, to time.Time) []any { return []any{bench.Tenant, site} }
	siteRange := func(lo, hi func(from, to time.Time) time.Time) func(string, time.Time, time.Time) []any {
		// from and to are local (the 2-day range starts at a local midnight, across DST); bound as UTC.
		return func(s string, from, to time.Time) []any {
			return []any{bench.Tenant, s, lo(from, to).UTC(), hi(from, to).UTC()}
		}
	}
	bySite := " FROM " + tables.ElecIndexesBySite + " WHERE tenant_id = ? AND site_id = ? AND ts >= ? AND ts <= ?"
	margin := 35 * 24 * time.Hour
	return []floorRead{
		{"SELECT 1 (no table)", "SELECT 1", func(string, time.Time, time.Time) []any { return nil }},
		{"one site's index rows over 2 days (4 rows)", "SELECT dial, ts, generation_ts, value" + bySite,
			siteRange(func(f, _ time.Time) time.Time { return f.AddDate(0, 6, 0) }, func(f, _ time.Time) time.Time { return f.AddDate(0, 6, 1) })},
		{"the engine's read of a DAYS year (the year and 35 days around it, every column the index rules need)",
			"SELECT pod_id, dial, ts, index_before_change, nature, generation_ts, value" + bySite + " AND has(['MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID'], nature)",
			siteRange(func(f, _ time.Time) time.Time { return f.Add(-margin) }, func(_, t time.Time) time.Time { return t.Add(margin) })},
		{"the year's index rows flat, 4 columns", "SELECT dial, ts, generation_ts, value" + bySite,
			siteRange(func(f, _ time.Time) time.Time { return f }, func(_, t time.Time) time.Time { return t })},
		{"the year's pre-computed daily energy (a table of (site, dial, day) → Wh built for this run)",
			"SELECT dial, day, wh FROM " + dailyEnergyTable + " WHERE tenant_id = ? AND site_id = ?", site},
	}
}

// buildDailyEnergy fills the daily energy table from the benchmark's indexes: per site, dial and
// local day, the difference of the latest index at the day's end and its start (the data set
// reads every local midnight).
func buildDailyEnergy(ctx context.Context, db *schema.DB) error {
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + dailyEnergyTable,
		"CREATE TABLE " + dailyEnergyTable + " (tenant_id String, site_id String, dial String, day Date, wh Int64) ENGINE = MergeTree ORDER BY (tenant_id, site_id, dial, day) SETTINGS index_granularity = 1024",
		"INSERT INTO " + dailyEnergyTable + " SELECT tenant_id, site_id, dial, toDate(t, '" + bench.Timezone + "') AS day, d FROM (" +
			" SELECT tenant_id, site_id, dial, arrayPopBack(tss) AS froms, arrayPopFront(arrayDifference(vs)) AS diffs FROM (" +
			"  SELECT tenant_id, site_id, dial, groupArray(ts) AS tss, groupArray(v) AS vs FROM (" +
			"   SELECT tenant_id, site_id, dial, ts, argMax(value, generation_ts) AS v FROM " + tables.ElecIndexesBySite +
			"   WHERE tenant_id = '" + bench.Tenant + "' GROUP BY tenant_id, site_id, dial, ts ORDER BY tenant_id, site_id, dial, ts)" +
			"  GROUP BY tenant_id, site_id, dial)) ARRAY JOIN froms AS t, diffs AS d SETTINGS max_threads = 1", // groupArray in ts order
		"OPTIMIZE TABLE " + dailyEnergyTable + " FINAL",
	} {
		if err := db.Conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("daily energy table: %w", err)
		}
	}
	return nil
}

// floorResult is what one kind of read cost over the rounds.
type floorResult struct {
	read                  floorRead
	client                []time.Duration
	returned              []uint64 // rows received, counted by the client
	serverMs, rows, bytes []uint64
}

func runReadFloor(ctx context.Context, o options) error {
	r := &report{spec: bench.Spec{Sites: o.sites, Year: o.year}, opts: o}
	ds, closeAll, err := openDataSet(ctx, o, r)
	if err != nil {
		return err
	}
	defer closeAll()
	db := ds.db
	logf("building the daily energy table...")
	if err := buildDailyEnergy(ctx, db); err != nil {
		return err
	}
	defer func() { _ = db.Conn.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+dailyEnergyTable) }()
	reads := floorReads()
	results := make([]*floorResult, len(reads))
	for i := range reads {
		results[i] = &floorResult{read: reads[i]}
	}
	loc, err := time.LoadLocation(bench.Timezone)
	if err != nil {
		return err
	}
	from := time.Date(o.year, 1, 1, 0, 0, 0, 0, loc)
	to := from.AddDate(1, 0, 0)
	run := fmt.Sprintf("readfloor-%d", time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(uint64(o.sites), 42))
	logf("%d rounds of %d reads on random sites...", o.runs, len(reads))
	for round := range o.runs {
		for _, i := range rng.Perm(len(reads)) { // a new order every round
			site := bench.SiteID(rng.IntN(o.sites))
			qctx := clickhouse.Context(ctx, clickhouse.WithQueryID(fmt.Sprintf("%s-%d-%d", run, i, round)),
				clickhouse.WithSettings(clickhouse.Settings{"log_queries": 1}))
			start := time.Now()
			rows, err := db.Conn.Query(qctx, reads[i].sql, reads[i].args(site, from, to)...)
			if err != nil {
				return fmt.Errorf("%s: %w", reads[i].name, err)
			}
			var n uint64
			for rows.Next() {
				n++
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", reads[i].name, err)
			}
			results[i].client = append(results[i].client, time.Since(start))
			results[i].returned = append(results[i].returned, n)
		}
	}
	if err := readFloorLog(ctx, db, run, results, o.runs); err != nil {
		return err
	}
	md := readFloorMarkdown(r, results, o.runs)
	fmt.Print(md)
	if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
		return err
	}
	logf("written to %s", o.out)
	return nil
}

// readFloorLog waits for system.query_log to hold every read of the run (it is flushed every few
// seconds) and collects the server's duration, read rows and bytes of each.
func readFloorLog(ctx context.Context, db *schema.DB, run string, results []*floorResult, runs int) error {
	want := uint64(runs * len(results))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM system.query_log WHERE type = 2 AND startsWith(query_id, ?)", run+"-").Scan(&n); err != nil {
			return err
		}
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("system.query_log holds %d of the run's %d reads after 30 s", n, want)
		}
	}
	rows, err := db.Conn.Query(ctx, "SELECT query_id, query_duration_ms, read_rows, read_bytes FROM system.query_log WHERE type = 2 AND startsWith(query_id, ?)", run+"-")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var ms, readRows, readBytes uint64
		if err := rows.Scan(&id, &ms, &readRows, &readBytes); err != nil {
			return err
		}
		var i, round int
		if _, err := fmt.Sscanf(strings.TrimPrefix(id, run+"-"), "%d-%d", &i, &round); err != nil || i < 0 || i >= len(results) {
			continue
		}
		res := results[i]
		res.serverMs, res.rows, res.bytes = append(res.serverMs, ms), append(res.rows, readRows), append(res.bytes, readBytes)
	}
	return rows.Err()
}

func readFloorMarkdown(r *report, results []*floorResult, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### One site's read on ClickHouse: the floor\n\n`go run ./bench/cmd/consbench --read-floor` (`make bench-read-floor`), %s, commit %s. Machine: %s cores, %s; load average at the end %s; Go %s, ClickHouse %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), gitCommit(), nproc(), cpuModel(), loadAverage(), strings.TrimPrefix(runtime.Version(), "go"), r.clickhouseVersion)
	fmt.Fprintf(&b, "Data: the consumption benchmark's %s sites × %d (daily indexes of two dials, `%s`). Each read runs %d times on random sites, the reads interleaved in a new order every round. "+
		"Server: `query_duration_ms` from `system.query_log` (whole milliseconds). Client: from sending the query through clickhouse-go to having received its last row.\n\n",
		thousands(uint64(r.spec.Sites)), r.spec.Year, tables.ElecIndexesBySite, runs)
	b.WriteString("| read | rows returned | read rows p50 | read bytes p50 | server p50 / p90 | client p50 / p90 |\n|---|---:|---:|---:|---:|---:|\n")
	for _, res := range results {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d / %d ms | %s / %s |\n", res.read.name, thousands(bench.Percentile(res.returned, 50)),
			thousands(bench.Percentile(res.rows, 50)), kib(int64(bench.Percentile(res.bytes, 50))),
			bench.Percentile(res.serverMs, 50), bench.Percentile(res.serverMs, 90),
			ms(percentile(res.client, 50)), ms(percentile(res.client, 90)))
	}
	b.WriteString("\nReproduce: `make bench-read-floor` (about a minute on the reused data set; `--runs` sets the rounds).\n")
	return b.String()
}
