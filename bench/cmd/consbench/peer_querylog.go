package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"energy/bench"
	"energy/schema"
	"energy/schema/tables"
)

// queryLogStats is what system.query_log recorded for a batch of requests, per request.
type queryLogStats struct {
	requests   int
	queries    float64 // ClickHouse queries per request
	readRows   float64
	readBytes  float64
	durationMs float64 // summed query_duration_ms per request
	goCPUMs    float64 // energyd's process CPU per request (user + system), for energyd's batches
}

// logWindow is a batch of requests alone in whole seconds of system.query_log's event_time.
type logWindow struct{ from, to time.Time }

// inOwnSeconds runs batch so that no other logged query shares its seconds: it starts on a
// fresh second and the next batch waits for the second after its end.
func inOwnSeconds(batch func() error) (logWindow, error) {
	waitNextSecond()
	w := logWindow{from: time.Now().Truncate(time.Second)}
	err := batch()
	time.Sleep(200 * time.Millisecond) // the last query's log entry is written after its answer
	w.to = time.Now()
	waitNextSecond()
	return w, err
}

func waitNextSecond() { time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second))) }

// queryLog sends each per-site request kind to energyd, then its direct SQL, n times each, in
// windows of their own, and reads what ClickHouse logged for them: the queries, rows and bytes
// each answer costs the server.
func (p *peers) queryLog(ctx context.Context, r *peerReport) error {
	n := p.o.logRequests
	logf("system.query_log: %d requests of each kind to energyd and as direct SQL...", n)
	type pending struct {
		stats *queryLogStats
		w     logWindow
		n     int
		cpu   time.Duration // energyd's CPU over the batch
	}
	var todo []pending
	for _, req := range r.requests {
		cpu0, err := p.energyd.cpu()
		if err != nil {
			return err
		}
		w, err := inOwnSeconds(func() error {
			for range n {
				sc := scenarioNamed(scenarios(bench.SiteID(p.rng.IntN(p.o.sites)), p.o.year), req.name)
				status, body, _, err := get(p.client, p.url+sc.path, p.token)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("%w: %d %s", errBadAnswer, status, body)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		cpu1, err := p.energyd.cpu()
		if err != nil {
			return err
		}
		todo = append(todo, pending{&req.energyd, w, n, cpu1 - cpu0})
		w, err = inOwnSeconds(func() error {
			for range n {
				sc := scenarioNamed(scenarios(bench.SiteID(p.rng.IntN(p.o.sites)), p.o.year), req.name)
				rows, err := p.ch.Conn.Query(logQueries(ctx), sc.sql)
				if err != nil {
					return err
				}
				if _, err := chEnergies(rows, p.loc); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		todo = append(todo, pending{&req.directSQL, w, n, 0})
	}
	for _, s := range r.scans {
		w, err := inOwnSeconds(func() error {
			rows, err := p.ch.Conn.Query(logQueries(ctx), s.chSQL)
			if err != nil {
				return err
			}
			_, err = chEnergies(rows, p.loc)
			return err
		})
		if err != nil {
			return err
		}
		todo = append(todo, pending{&s.direct, w, 1, 0})
	}
	if err := flushQueryLog(ctx, p.ch); err != nil {
		return err
	}
	for _, t := range todo {
		stats, err := loggedPerRequest(ctx, p.ch, t.w, t.n)
		if err != nil {
			return err
		}
		stats.goCPUMs = float64(t.cpu) / float64(time.Millisecond) / float64(t.n)
		*t.stats = stats
	}
	return nil
}

// flushQueryLog makes the queries logged so far readable in system.query_log.
func flushQueryLog(ctx context.Context, db *schema.DB) error {
	return db.Conn.Exec(ctx, "SYSTEM FLUSH LOGS")
}

// backgroundTables are those energyd polls on its own, request or not (tokens and data versions
// every 250 ms, archive jobs, notifications, erasures): queries naming them are not a request's.
var backgroundTables = []string{tables.APITokens, tables.DataVersions, tables.Jobs, tables.JobLeases,
	tables.AdviceJobs, tables.Notifications, tables.SiteErasures}

// notBackground is the query_log condition leaving out energyd's polls of backgroundTables.
func notBackground() string {
	var conds []string
	for _, t := range backgroundTables {
		conds = append(conds, "query NOT LIKE '%"+t+"%'")
	}
	return strings.Join(conds, " AND ")
}

// loggedPerRequest reads what system.query_log holds for the n requests run in window w (after
// flushQueryLog), per request, energyd's polls of its background tables left out.
func loggedPerRequest(ctx context.Context, db *schema.DB, w logWindow, n int) (queryLogStats, error) {
	var count, rows, bytes, ms uint64
	err := db.Conn.QueryRow(ctx, `SELECT count(), sum(read_rows), sum(read_bytes), sum(query_duration_ms) FROM system.query_log
WHERE type = 2 AND event_date >= toDate(?) AND event_time >= ? AND event_time <= ? AND `+notBackground(), w.from, w.from, w.to).Scan(&count, &rows, &bytes, &ms)
	if err != nil {
		return queryLogStats{}, fmt.Errorf("system.query_log: %w", err)
	}
	if count < uint64(n) {
		return queryLogStats{}, fmt.Errorf("system.query_log holds %d finished queries for %d requests between %s and %s", count, n, w.from.Format(time.TimeOnly), w.to.Format(time.TimeOnly))
	}
	f := float64(n)
	return queryLogStats{requests: n, queries: float64(count) / f, readRows: float64(rows) / f, readBytes: float64(bytes) / f, durationMs: float64(ms) / f}, nil
}

func scenarioNamed(all []scenario, name string) scenario {
	for _, s := range all {
		if s.name == name {
			return s
		}
	}
	panic("no scenario " + name)
}
