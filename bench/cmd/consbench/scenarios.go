package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"energy/bench"
)

// scenario is one measured request and the SQL doing the same aggregation directly.
type scenario struct {
	name, label string
	path        string
	items       int    // consumptions expected in the answer
	window      bool   // the period holds more than 1,200 steps
	sql         string // the same aggregation, run with clickhouse-client
}

// scenarios are one site over one local calendar year at DAYS, MONTHS and HOURS (the window:
// the first 1,200 hours).
func scenarios(site string, year int) []scenario {
	period := fmt.Sprintf("startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00", year, year+1)
	base := "/v2/sites/" + site + "/fluids/elec/consumptions?" + period
	days := int(time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	return []scenario{
		{name: "DAYS", label: "DAYS, 1 year", path: base + "&stepUnit=DAYS", items: days, sql: indexSQL(site, year, "toStartOfDay")},
		{name: "MONTHS", label: "MONTHS, 1 year", path: base + "&stepUnit=MONTHS", items: 12, sql: indexSQL(site, year, "toStartOfMonth")},
		{name: "HOURS", label: "HOURS, 1 year (window of 1,200)", path: base + "&stepUnit=HOURS", items: 1200, window: true, sql: curveSQL(site, year, 1200)},
	}
}

// indexSQL is the index-based aggregation: the winning reading per (dial, ts) (latest
// generation among the smart natures, resolved with argMax and no FINAL, as the engine does),
// then each dial's index differences summed per local step.
func indexSQL(site string, year int, stepFn string) string {
	return indexStepsSQL(fmt.Sprintf("site_id = '%s'", site), "dial", year, stepFn)
}

// indexStepsSQL is indexSQL over the rows of filter, one series per keys (dial, or site_id and
// dial for every site at once).
func indexStepsSQL(filter, keys string, year int, stepFn string) string {
	return fmt.Sprintf(`SELECT %[2]s, %[4]s(t, '%[3]s') AS step, sum(d) AS wh FROM (
  SELECT %[2]s, arrayPopBack(tss) AS froms, arrayPopFront(arrayDifference(vs)) AS diffs FROM (
    SELECT %[2]s, groupArray(ts) AS tss, groupArray(v) AS vs FROM (
      SELECT %[2]s, ts, argMax(value, generation_ts) AS v FROM elec_indexes
      WHERE tenant_id = '%[1]s' AND %[7]s AND nature IN ('MKT_SMART_DISTRIBUTOR', 'MKT_SMART_DISTRIBUTOR_INVALID')
        AND ts >= toDateTime('%[5]d-01-01 00:00:00', '%[3]s') AND ts <= toDateTime('%[6]d-01-01 00:00:00', '%[3]s')
      GROUP BY %[2]s, ts ORDER BY %[2]s, ts)
    GROUP BY %[2]s)
) ARRAY JOIN froms AS t, diffs AS d
GROUP BY %[2]s, step ORDER BY %[2]s, step`, bench.Tenant, keys, bench.Timezone, stepFn, year, year+1, filter)
}

// curveSQL is the load-curve aggregation of the hour window: the latest generation of each
// point (argMax, no FINAL), energy = W × duration, summed per hour and split HC (22:00-06:00
// local) / HP.
func curveSQL(site string, year, hours int) string {
	return fmt.Sprintf(`SELECT toStartOfHour(b) AS step,
  sum(v * (toUInt32(e) - toUInt32(b))) / 3600 AS wh,
  sumIf(v * (toUInt32(e) - toUInt32(b)), toHour(b, '%[3]s') >= 22 OR toHour(b, '%[3]s') < 6) / 3600 AS hc
FROM (
  SELECT begin_ts AS b, argMax(end_ts, generation_ts) AS e, argMax(value, generation_ts) AS v FROM load_curve_points
  WHERE tenant_id = '%[1]s' AND site_id = '%[2]s'
    AND begin_ts >= toDateTime('%[4]d-01-01 00:00:00', '%[3]s') AND begin_ts < toDateTime('%[4]d-01-01 00:00:00', '%[3]s') + %[5]d
  GROUP BY begin_ts)
GROUP BY step ORDER BY step`, bench.Tenant, site, bench.Timezone, year, hours*3600)
}

// check verifies the answer once: 200, the expected item count, a computationPeriod exactly
// when the window cuts, and energy in every step.
func check(client *http.Client, url, token string, sc scenario, res *scenarioResult) error {
	st, b, _, err := get(client, url, token)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("%s: %w: %d %s", sc.name, errBadAnswer, st, b)
	}
	var body struct {
		ComputationPeriod *struct{ EndTime string } `json:"computationPeriod"`
		Consumptions      []struct {
			EnergyMeter struct{ Total *float64 } `json:"energyMeter"`
			Status      string                   `json:"status"`
		} `json:"consumptions"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return err
	}
	if len(body.Consumptions) != sc.items {
		return fmt.Errorf("%s: %w: %d consumptions, want %d", sc.name, errBadAnswer, len(body.Consumptions), sc.items)
	}
	if (body.ComputationPeriod != nil) != sc.window {
		return fmt.Errorf("%s: %w: computationPeriod %v with window=%v", sc.name, errBadAnswer, body.ComputationPeriod, sc.window)
	}
	var statuses []string
	res.totalWh = 0
	for _, c := range body.Consumptions {
		if c.EnergyMeter.Total == nil {
			return fmt.Errorf("%s: %w: a step without energy (%s)", sc.name, errBadAnswer, c.Status)
		}
		res.totalWh += *c.EnergyMeter.Total
		if len(statuses) < 3 && !strings.Contains(strings.Join(statuses, ","), c.Status) {
			statuses = append(statuses, c.Status)
		}
	}
	res.bodyBytes = len(b)
	res.statuses = strings.Join(statuses, ",")
	return nil
}
