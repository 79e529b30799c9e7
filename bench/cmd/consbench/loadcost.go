package main

import (
	"context"
	"syscall"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// loadCost is what loading the readings cost in CPU, by ClickHouse's own accounting of its
// INSERT and OPTIMIZE queries (system.query_log: the CPU time of each query's threads, its
// materialized view included; the background merges during the load are not in it) and by the
// benchmark process's (generating, encoding and sending the rows).
type loadCost struct {
	Inserts      int     // INSERT queries of the readings
	InsertRows   uint64  // rows they wrote, by-site copy included
	InsertCPU    float64 // seconds of server CPU, user + system
	OptimizeCPU  float64
	LoaderCPU    float64 // seconds of the benchmark process's CPU during the load
	ServerCPUsOK bool    // the server's query log gave the CPU times (18.16 to 20.x: ProfileEvents arrays)
}

// processCPU is the CPU time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverLoadCost reads the CPU of the readings' INSERTs and of the OPTIMIZEs logged since from.
// Servers whose query log keeps ProfileEvents as a map (21.x on) leave ServerCPUsOK false.
func serverLoadCost(ctx context.Context, db *schema.DB, from time.Time, c *loadCost) error {
	if err := flushQueryLog(ctx, db); err != nil {
		return err
	}
	var inserts, rows uint64
	var insertMicros, optimizeMicros uint64
	err := db.Conn.QueryRow(ctx, `SELECT countIf(insert), sumIf(written_rows, insert), sumIf(cpu, insert), sumIf(cpu, NOT insert) FROM (
  SELECT query LIKE 'INSERT%' AS insert, written_rows,
    arraySum(arrayFilter((v, n) -> has(['UserTimeMicroseconds', 'SystemTimeMicroseconds'], n), ProfileEvents.Values, ProfileEvents.Names)) AS cpu
  FROM system.query_log
  WHERE type = 2 AND event_date >= toDate(?) AND event_time >= ?
    AND (query LIKE ? OR query LIKE ? OR query LIKE 'OPTIMIZE TABLE%'))`,
		from, from, "INSERT INTO "+tables.LoadCurvePoints+" %", "INSERT INTO "+tables.ElecIndexes+" %").Scan(&inserts, &rows, &insertMicros, &optimizeMicros)
	if err != nil {
		logf("the server's query log gives no CPU times (%v): the load's bound is not shown", err)
		return nil
	}
	c.Inserts, c.InsertRows = int(inserts), rows
	c.InsertCPU, c.OptimizeCPU = float64(insertMicros)/1e6, float64(optimizeMicros)/1e6
	c.ServerCPUsOK = inserts > 0 && insertMicros > 0
	return nil
}
