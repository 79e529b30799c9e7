package main

import (
	"fmt"
	"strings"

	"energy/bench"
)

// The same aggregations for PostgreSQL, with the semantics of the ClickHouse direct SQL: the
// latest generation per (dial, ts) or per point, chosen with DISTINCT ON in the order of the
// btree (no sort), index differences summed per local step, load-curve energy per hour split
// HC/HP. Steps come back as Unix seconds, energies as Wh, so that both stores compare exactly.
// The step unit and the time zone are literals in the text, as a user writing a dashboard's
// query would have them: the planner sees them (each unit its own prepared statement), only
// the tenant, site and instants are bound.

// pgZone is the data set's time zone as an SQL literal.
var pgZone = pgLiteral(bench.Timezone)

// pgLiteral quotes a constant of the benchmark (never input) as an SQL string literal.
func pgLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgIndexSQL is the index aggregation per unit of date_trunc (day, month): $1 tenant, $2 site,
// $3 first instant, $4 last instant (included: the reading that closes the last step).
func pgIndexSQL(unit string) string {
	return strings.NewReplacer("$UNIT", pgLiteral(unit), "$ZONE", pgZone).Replace(pgIndexSQLText)
}

const pgIndexSQLText = `SELECT dial, extract(epoch FROM date_trunc($UNIT, ts, $ZONE))::bigint AS step, sum(d)::float8 AS wh FROM (
  SELECT dial, ts, lead(value) OVER (PARTITION BY dial ORDER BY ts) - value AS d FROM (
    SELECT DISTINCT ON (dial, ts) dial, ts, value FROM elec_indexes
    WHERE tenant_id = $1 AND site_id = $2 AND nature IN ('MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID')
      AND ts >= $3 AND ts <= $4
    ORDER BY dial, ts, generation_ts DESC) latest) diffs
WHERE d IS NOT NULL
GROUP BY dial, step ORDER BY dial, step`

// pgCurveSQL: $1 tenant, $2 site, $3 first instant, $4 end (excluded).
var pgCurveSQL = strings.ReplaceAll(`SELECT extract(epoch FROM date_trunc('hour', b))::bigint AS step,
  (sum(v * extract(epoch FROM e - b)::bigint) / 3600.0)::float8 AS wh,
  (coalesce(sum(v * extract(epoch FROM e - b)::bigint) FILTER (WHERE extract(hour FROM b AT TIME ZONE $ZONE) >= 22 OR extract(hour FROM b AT TIME ZONE $ZONE) < 6), 0) / 3600.0)::float8 AS hc
FROM (
  SELECT DISTINCT ON (begin_ts) begin_ts AS b, end_ts AS e, value AS v FROM load_curve_points
  WHERE tenant_id = $1 AND site_id = $2 AND begin_ts >= $3 AND begin_ts < $4
  ORDER BY begin_ts, generation_ts DESC) latest
GROUP BY step ORDER BY step`, "$ZONE", pgZone)

// pgCurveScanSQL is every site's load-curve energy per local month, over every stored point
// (the data set holds one generation per point; choosing the latest per point over the whole
// table is a 17.5-M-group aggregation on ClickHouse 18.16, left to the per-site requests):
// $1 tenant, $2 first instant, $3 end (excluded).
var pgCurveScanSQL = strings.ReplaceAll(`SELECT site_id, extract(epoch FROM date_trunc('month', begin_ts, $ZONE))::bigint AS step,
  (sum(value * extract(epoch FROM end_ts - begin_ts)::bigint) / 3600.0)::float8 AS wh
FROM load_curve_points
WHERE tenant_id = $1 AND begin_ts >= $2 AND begin_ts < $3
GROUP BY site_id, step ORDER BY site_id, step`, "$ZONE", pgZone)

// pgIndexScanSQL is every site's index energy per dial and local month (MONTHS semantics):
// $1 tenant, $2 first instant, $3 last instant (included). The shortcut of
// chIndexScanSQL (each month's first reading by DISTINCT ON, then lead() over the months) was
// measured here too and is no faster on PostgreSQL, which walks and sorts every reading either
// way.
var pgIndexScanSQL = strings.ReplaceAll(`SELECT site_id, dial, extract(epoch FROM date_trunc('month', ts, $ZONE))::bigint AS step, sum(d)::float8 AS wh FROM (
  SELECT site_id, dial, ts, lead(value) OVER (PARTITION BY site_id, dial ORDER BY ts) - value AS d FROM (
    SELECT DISTINCT ON (site_id, dial, ts) site_id, dial, ts, value FROM elec_indexes
    WHERE tenant_id = $1 AND nature IN ('MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID')
      AND ts >= $2 AND ts <= $3
    ORDER BY site_id, dial, ts, generation_ts DESC) latest) diffs
WHERE d IS NOT NULL
GROUP BY site_id, dial, step ORDER BY site_id, dial, step`, "$ZONE", pgZone)

// chCurveScanSQL is pgCurveScanSQL for ClickHouse.
func chCurveScanSQL(year int) string {
	return fmt.Sprintf(`SELECT site_id, toStartOfMonth(begin_ts, '%[2]s') AS step, sum(value * (toUInt32(end_ts) - toUInt32(begin_ts))) / 3600 AS wh
FROM load_curve_points
WHERE tenant_id = '%[1]s' AND begin_ts >= toDateTime('%[3]d-01-01 00:00:00', '%[2]s') AND begin_ts < toDateTime('%[4]d-01-01 00:00:00', '%[2]s')
GROUP BY site_id, step ORDER BY site_id, step`, bench.Tenant, bench.Timezone, year, year+1)
}

// chIndexScanSQL is pgIndexScanSQL for ClickHouse, the same energies as the per-site MONTHS
// query run over every site (indexStepsSQL), in fewer and smaller stages. The differences
// between consecutive readings that start in a month add up to the index at the first reading
// after the month's last one (the first reading of the next month that has any) minus the
// index at the month's first reading. So one GROUP BY takes each series' first winning reading
// of each month (the earliest ts, and at that ts the latest generation: one UInt64 key, ts in
// the high 32 bits), and each series' dozen months are sorted and differenced in arrays (sorted
// there, not by an ORDER BY that groupArray would have to keep). The nested form resolves the
// latest generation per (site, dial, ts) first, a GROUP BY of every reading (734,000 keys at
// 1,000 sites), then carries every reading through groupArray and ARRAY JOIN. It reads the
// by-site copy of the readings: a year of every site is the whole table either way, and one
// merged part reads faster than thirteen monthly ones (about 1.7× here, interleaved).
func chIndexScanSQL(year int) string {
	return fmt.Sprintf(`SELECT site_id, dial, step, wh FROM (
  SELECT site_id, dial, arraySort(groupArray(month)) AS months, arraySort((v, m) -> m, groupArray(first), groupArray(month)) AS firsts FROM (
    SELECT site_id, dial, toStartOfMonth(ts, '%[2]s') AS month,
      argMin(value, bitShiftLeft(toUInt64(ts), 32) + (4294967295 - toUInt32(generation_ts))) AS first
    FROM elec_indexes_by_site
    WHERE tenant_id = '%[1]s' AND nature IN ('MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID')
      AND ts >= toDateTime('%[3]d-01-01 00:00:00', '%[2]s') AND ts <= toDateTime('%[4]d-01-01 00:00:00', '%[2]s')
    GROUP BY site_id, dial, month)
  GROUP BY site_id, dial
) ARRAY JOIN arrayPopBack(months) AS step, arrayPopFront(arrayDifference(firsts)) AS wh
ORDER BY site_id, dial, step`, bench.Tenant, bench.Timezone, year, year+1)
}
