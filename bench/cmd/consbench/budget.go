package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strings"
	"time"

	"energy/apidocs"
	"energy/bench"
	"energy/query/cache"
	"energy/query/consumption"
	"energy/query/heating"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// The budget benchmark (--budget, make bench-budget) measures the budget matrix of one
// electrically heated site of the data set: its year of daily indexes fitted on two years of
// hourly weather at its station, as of January 2nd after that year. Computed (result cache
// disabled) and cached latency, beside the two reads the model makes, written by hand: the
// intervals between the site's daily readings and the station's daily mean temperatures
// (degree days at the fitted balance point).
const (
	budgetStation       = "BENCH-ST"
	targetBudgetColdP50 = 100 * time.Millisecond
)

type budgetResult struct {
	cold, cached    []time.Duration
	intervalsSQL    sqlRun
	degreeDaysSQL   sqlRun
	chCalls         int64
	chNanos         float64
	bodyBytes       int
	balancePoint    *float64
	base, slope, r2 float64
	intervals       int
	siteID, now     string
}

func runBudget(ctx context.Context, o options) error {
	r := &report{spec: bench.Spec{Sites: o.sites, Year: o.year}, opts: o}
	ds, closeAll, err := openDataSet(ctx, o, r)
	if err != nil {
		return err
	}
	defer closeAll()
	dsn, db, reg := ds.dsn, ds.db, ds.reg
	loc, err := time.LoadLocation(bench.Timezone)
	if err != nil {
		return err
	}
	res := &budgetResult{siteID: bench.SiteID(o.sites / 2)}
	if err := putBudgetSite(ctx, db, reg, o.year, res.siteID, loc); err != nil {
		return err
	}

	trace := &chTrace{}
	db.Conn = tracedConn{Conn: db.Conn, trace: trace}
	now := time.Date(o.year+1, 1, 2, 12, 0, 0, 0, loc)
	res.now = now.Format(time.RFC3339)
	budgeter := heating.NewBudgeter(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
	budgeter.SetClock(func() time.Time { return now })
	coldURL, cachedURL, token, stop, err := serveColdAndCached(ctx, reg,
		apidocs.Config{Registry: reg, Ready: db.Ping, Budgets: heating.NewBudgets(budgeter, reg.Versions, 0, 0)},
		apidocs.Config{Registry: reg, Ready: db.Ping, Budgets: heating.NewBudgets(budgeter, reg.Versions, cache.DefaultEntries, cache.DefaultBytes)})
	if err != nil {
		return err
	}
	defer stop()
	client := newClient(o.concurrency)
	path := "/v1/sites/" + res.siteID + "/budget/matrix"
	if err := res.check(client, coldURL+path, token); err != nil {
		return err
	}
	if _, err := timeRequests(client, cachedURL+path, token, 1, "MISS"); err != nil { // fills the cache
		return err
	}
	intervalsQ := budgetIntervalsSQL(res.siteID, now.Add(-800*24*time.Hour), now)
	degreeDaysQ := budgetDegreeDaysSQL(now, *res.balancePoint, loc)
	logf("budget matrix: %d computed requests and 2 × %d direct SQL queries in %d rounds...", o.runs, o.runs, rounds)
	for round := range rounds {
		n := o.runs/rounds + boolInt(round < o.runs%rounds)
		calls0, nanos0 := trace.snapshot()
		cold, err := timeRequests(client, coldURL+path, token, n, "MISS")
		if err != nil {
			return err
		}
		calls1, nanos1 := trace.snapshot()
		res.cold = append(res.cold, cold...)
		res.chCalls += calls1 - calls0
		res.chNanos += nanos1 - nanos0
		for _, q := range []struct {
			sql string
			to  *sqlRun
		}{{intervalsQ, &res.intervalsSQL}, {degreeDaysQ, &res.degreeDaysSQL}} {
			run, err := timeSQL(ctx, dsn, q.sql, n, delivered)
			if err != nil {
				return err
			}
			q.to.times = append(q.to.times, run.times...)
			q.to.bytes, q.to.rows = run.bytes, run.rows
		}
	}
	logf("budget matrix: %d cached requests...", o.cachedRuns)
	if res.cached, err = timeRequests(client, cachedURL+path, token, o.cachedRuns, "HIT"); err != nil {
		return err
	}
	if err := r.describeData(ctx, db); err != nil {
		return err
	}
	return writeResults(o.out, res.markdown(r, intervalsQ, degreeDaysQ))
}

// putBudgetSite gives the measured site a weather station with hourly weather over the year
// before and the data set's year: a seasonal cycle that follows the generator's heating season
// (coldest mid-January) with a daily cycle and a few days' weather systems.
func putBudgetSite(ctx context.Context, db *schema.DB, reg *registry.Store, year int, siteID string, loc *time.Location) error {
	if err := reg.PutStation(ctx, registry.Station{TenantID: bench.Tenant, StationID: budgetStation, Name: "Bench station", Latitude: 48.7, Longitude: 2.4}); err != nil {
		return err
	}
	var obs []weather.Observation
	for t := time.Date(year-1, 1, 1, 0, 0, 0, 0, loc); t.Before(time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)); t = t.Add(time.Hour) {
		local := t.In(loc)
		day := float64(local.YearDay())
		temp := 11 - 8*math.Cos(2*math.Pi*(day-15)/365) + 3*math.Sin(2*math.Pi*day/6.3) +
			4*math.Sin(2*math.Pi*(float64(local.Hour())-9)/24)
		obs = append(obs, weather.Observation{Date: t.UTC(), Temperature: math.Round(temp*10) / 10, Cloudiness: 4})
	}
	if err := weather.NewStore(db).Put(ctx, bench.Tenant, budgetStation, obs); err != nil {
		return err
	}
	// Merged like the readings after their load: each run writes the weather again, and the
	// parts of earlier runs would otherwise weigh on the station's reads.
	if err := db.Conn.Exec(ctx, "OPTIMIZE TABLE "+tables.WeatherObservations+" FINAL"); err != nil {
		return err
	}
	site, err := reg.Site(ctx, bench.Tenant, siteID)
	if err != nil {
		return err
	}
	site.WeatherStationID = budgetStation
	return reg.PutSite(ctx, site)
}

// check gets the matrix once and keeps what the report shows of the fitted model.
func (res *budgetResult) check(client *http.Client, url, token string) error {
	st, body, _, err := get(client, url, token)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("%s: %d %s", url, st, body)
	}
	var m heating.Matrix
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	if len(m.BudgetVectors) != 25 || m.MetaData.BalancePointC == nil || m.MetaData.Intervals < 300 {
		return fmt.Errorf("%s: %d vectors, balance point %v, %d intervals: not a fitted year", url, len(m.BudgetVectors), m.MetaData.BalancePointC, m.MetaData.Intervals)
	}
	res.bodyBytes, res.balancePoint, res.intervals = len(body), m.MetaData.BalancePointC, m.MetaData.Intervals
	res.base, res.slope, res.r2 = m.MetaData.BaseKWhPerDay, m.MetaData.KWhPerDegreeDay, m.MetaData.R2
	return nil
}

// budgetIntervalsSQL is the model's first read by hand: the energy between the site's
// consecutive daily readings (latest generation per dial and instant, dials summed), in kWh.
func budgetIntervalsSQL(site string, from, to time.Time) string {
	return fmt.Sprintf(`SELECT t0, t1, sum(d) / 1000 AS kwh FROM (
  SELECT dial, arrayPopBack(tss) AS froms, arrayPopFront(tss) AS tos, arrayPopFront(arrayDifference(vs)) AS diffs FROM (
    SELECT dial, groupArray(ts) AS tss, groupArray(v) AS vs FROM (
      SELECT dial, ts, argMax(value, generation_ts) AS v FROM elec_indexes
      WHERE tenant_id = '%s' AND site_id = '%s' AND nature IN ('MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID')
        AND ts >= toDateTime('%s', 'UTC') AND ts <= toDateTime('%s', 'UTC')
      GROUP BY dial, ts ORDER BY dial, ts)
    GROUP BY dial)
) ARRAY JOIN froms AS t0, tos AS t1, diffs AS d
GROUP BY t0, t1 ORDER BY t0`, bench.Tenant, site, from.UTC().Format(time.DateTime), to.UTC().Format(time.DateTime))
}

// budgetDegreeDaysSQL is the model's second read by hand: the station's daily mean temperature
// per local day and its heating degrees at the fitted balance point, over the years the normal
// year may use. The mean is summed in whole nanodegrees and divided once, as the model's read
// does, so that it has the same bits on every ClickHouse release.
func budgetDegreeDaysSQL(now time.Time, balancePoint float64, loc *time.Location) string {
	first := time.Date(now.In(loc).Year()-11, 1, 1, 0, 0, 0, 0, loc)
	return fmt.Sprintf(`SELECT toYYYYMMDD(date, '%s') AS day,
  sum(toInt64(floor(temperature * 1000000000 + 0.5))) / (count() * 1000000000) AS mean, greatest(0, %g - mean) AS hdd
FROM weather_observations FINAL
WHERE tenant_id = '%s' AND station_id = '%s' AND date >= toDateTime('%s', 'UTC') AND date < toDateTime('%s', 'UTC')
GROUP BY day ORDER BY day`, loc.String(), balancePoint, bench.Tenant, budgetStation, first.UTC().Format(time.DateTime), now.UTC().Format(time.DateTime))
}

func (res *budgetResult) markdown(r *report, intervalsQ, degreeDaysQ string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("### Budget matrix\n\n")
	w("`go run ./bench/cmd/consbench --budget` (`make bench-budget`), %s, commit %s. Machine: %s cores, %s; load average at the end %s; Go %s, ClickHouse %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), gitCommit(), nproc(), cpuModel(), loadAverage(), strings.TrimPrefix(runtime.Version(), "go"), r.clickhouseVersion)
	w("Data: the consumption benchmark's data set (%s sites × one year, %d, of daily smart indexes and 30-minute load curves: %s index rows, %s load-curve points); "+
		"site %s heats with electricity and gets a weather station with hourly weather over %d and %d (%s observations). "+
		"The model is fitted as of %s: %d daily intervals, balance point %.1f °C, base %.1f kWh/day, %.2f kWh per degree day, R² %.3f; the answer is %s.\n\n",
		thousands(uint64(r.spec.Sites)), r.spec.Year, thousands(r.indexes), thousands(r.points), res.siteID, r.spec.Year-1, r.spec.Year,
		thousands(uint64(2*365*24)), res.now, res.intervals, *res.balancePoint, res.base, res.slope, res.r2, kib(int64(res.bodyBytes)))
	w("Full HTTP round trip over loopback. *Computed*: result cache disabled, %d runs after a warm-up: the site's readings resolved into intervals, the station's daily means, "+
		"the heading energies that weight the electricity price (one consumption computation), the fit over 25 balance points and the 25 budgets. *Cached*: %d runs. "+
		"*Direct SQL*: the model's two reads written by hand, run %d times each in `clickhouse-client --time` sessions (rows delivered to a pipe; whole milliseconds), alternating with the computed requests in %d rounds.\n\n",
		len(res.cold), len(res.cached), len(res.intervalsSQL.times), rounds)
	w("| request | computed p50 | computed p99 | ClickHouse per computed answer | cached p50 | cached p99 |\n|---|---:|---:|---:|---:|---:|\n")
	calls := float64(res.chCalls) / float64(max(len(res.cold), 1))
	chMs := res.chNanos / 1e6 / float64(max(len(res.cold), 1))
	w("| budget matrix, 1 site-year | %s | %s | %.1f calls, %.2f ms | %s | %s |\n\n",
		ms(percentile(res.cold, 50)), ms(percentile(res.cold, 99)), calls, chMs, ms(percentile(res.cached, 50)), ms(percentile(res.cached, 99)))
	w("| direct SQL | output | p50 | p99 |\n|---|---:|---:|---:|\n")
	w("| reading intervals | %d rows, %s TSV | %s | %s |\n", res.intervalsSQL.rows, kib(res.intervalsSQL.bytes), ms(percentile(res.intervalsSQL.times, 50)), ms(percentile(res.intervalsSQL.times, 99)))
	w("| daily means and degree days | %d rows, %s TSV | %s | %s |\n\n", res.degreeDaysSQL.rows, kib(res.degreeDaysSQL.bytes), ms(percentile(res.degreeDaysSQL.times, 50)), ms(percentile(res.degreeDaysSQL.times, 99)))
	coldOK, cachedOK := percentile(res.cold, 50) <= targetBudgetColdP50, percentile(res.cached, 50) <= targetCachedP50
	w("Targets (2 cores): computed p50 ≤ 100 ms %s, cached p50 ≤ 1 ms %s.\n\n", mark(coldOK), mark(cachedOK))
	w("<details><summary>Reading intervals</summary>\n\n```sql\n%s\n```\n</details>\n\n", intervalsQ)
	w("<details><summary>Daily means and degree days</summary>\n\n```sql\n%s\n```\n</details>\n", degreeDaysQ)
	return b.String()
}
