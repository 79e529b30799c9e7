package daily

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"energy/bench"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// grafanaSQL is a panel's SQL as the ClickHouse data source sends it: the dashboard's variables
// (${name}) replaced by their values, then the plugin's macros expanded for the time range as
// grafana-clickhouse-datasource does ($__timeFilter(c): c between toDateTime(from) and
// toDateTime(to) in Unix seconds, both included; $__dateFilter(c): c between toDate('from') and
// toDate('to') of the range's UTC dates; $__fromTime, $__toTime: toDateTime(seconds)). Any other
// $ left is an error: the test would not run what Grafana runs.
func grafanaSQL(t *testing.T, sql string, vars map[string]string, from, to time.Time) string {
	t.Helper()
	for name, value := range vars {
		sql = strings.ReplaceAll(sql, "${"+name+"}", value)
	}
	dt := func(t time.Time) string { return fmt.Sprintf("toDateTime(%d)", t.Unix()) }
	date := func(t time.Time) string { return fmt.Sprintf("toDate('%s')", t.UTC().Format(time.DateOnly)) }
	sql = regexp.MustCompile(`\$__timeFilter\(([a-z_]+)\)`).ReplaceAllString(sql, "$1 >= "+dt(from)+" AND $1 <= "+dt(to))
	sql = regexp.MustCompile(`\$__dateFilter\(([a-z_]+)\)`).ReplaceAllString(sql, "$1 >= "+date(from)+" AND $1 <= "+date(to))
	sql = strings.NewReplacer("$__fromTime", dt(from), "$__toTime", dt(to)).Replace(sql)
	if strings.Contains(sql, "$") {
		t.Fatalf("a macro or variable the test does not expand:\n%s", sql)
	}
	return sql
}

// dashboard is what the test reads of a dashboard file.
type dashboard struct {
	Templating struct {
		List []struct {
			Name, Type string
			Query      any
		}
	}
	Panels []struct {
		Title      string
		Datasource struct{ Type, UID string }
		Targets    []struct {
			RawSQL    string `json:"rawSql"`
			QueryType string `json:"queryType"`
		}
	}
}

// TestConsumptionDashboardPanelsGiveTheNumbers runs every panel's SQL of
// deploy/grafana/dashboards/energy-consumption.json, as the data source would send it, against
// the benchmark's data (tenant bench: two sites with 2024 in daily_energy, a third site without
// data) and three archive jobs, and checks the numbers each panel shows against the consumption
// engine's answers.
func TestConsumptionDashboardPanelsGiveTheNumbers(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/grafana/dashboards/energy-consumption.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash dashboard
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 2, Year: 2024}, nil); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: bench.Tenant, SiteID: "B9999", Timezone: bench.Timezone}); err != nil {
		t.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	spans, err := table.Spans(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}
	// Jobs: two DONE (one written IN_PROGRESS first), one ERROR, one submitted before the range.
	jobs, err := db.Conn.PrepareBatch(ctx, "INSERT INTO jobs (tenant_id, job_id, state, submitted_ts, version)")
	if err != nil {
		t.Fatal(err)
	}
	at := func(d int) time.Time { return time.Date(2024, 6, d, 12, 0, 0, 0, time.UTC) }
	for _, j := range []struct {
		id, state string
		submitted time.Time
		version   uint64
	}{{"j1", "IN_PROGRESS", at(10), 1}, {"j1", "DONE", at(10), 2}, {"j2", "DONE", at(11), 1}, {"j3", "ERROR", at(12), 1},
		{"j0", "DONE", time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), 1}} {
		if err := jobs.Append(bench.Tenant, j.id, j.state, j.submitted, j.version); err != nil {
			t.Fatal(err)
		}
	}
	if err := jobs.Send(); err != nil {
		t.Fatal(err)
	}

	paris, _ := time.LoadLocation(bench.Timezone)
	vars := map[string]string{"tenant": bench.Tenant, "site": bench.SiteID(0), "fluid": registry.HeatingElec}
	// The variables' own queries run and list what the dashboard offers.
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(string)
		values := scan(t, db, grafanaSQL(t, q, vars, time.Now(), time.Now()), func(r schema.RowScanner) (string, error) {
			var s string
			return s, r.Scan(&s)
		})
		if want := map[string]string{"tenant": "bench", "site": "B0000 B0001 B9999"}[v.Name]; strings.Join(values, " ") != want {
			t.Errorf("variable %s offers %v, want %s", v.Name, values, want)
		}
	}
	site0, err := reg.Site(ctx, bench.Tenant, bench.SiteID(0))
	if err != nil {
		t.Fatal(err)
	}
	api := func(site registry.Site, unit string, from, to time.Time) []consumption.Consumption {
		t.Helper()
		res, err := engine.Compute(ctx, site, consumption.Request{Start: from, End: to, StepUnit: unit, StepValue: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res.Consumptions
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	type series struct {
		time    time.Time
		heading string
		kwh     float64
	}
	readSeries := func(sql string) []series {
		return scan(t, db, sql, func(r schema.RowScanner) (series, error) {
			var s series
			return s, r.Scan(&s.time, &s.heading, &s.kwh)
		})
	}
	// checkSeries compares (time, heading) points with the API's items' byTariffHeading.
	checkSeries := func(panel string, got []series, items []consumption.Consumption, timeOf func(consumption.Consumption) time.Time) {
		t.Helper()
		want := map[string]float64{}
		for _, it := range items {
			for h, wh := range it.EnergyMeter.ByTariffHeading {
				want[timeOf(it).UTC().Format(time.RFC3339)+" "+h] = wh / 1000
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d points, want %d", panel, len(got), len(want))
		}
		for _, p := range got {
			k := p.time.UTC().Format(time.RFC3339) + " " + p.heading
			if w, ok := want[k]; !ok || !near(p.kwh, w) {
				t.Errorf("%s: %s = %v kWh, the API's %v (%t)", panel, k, p.kwh, w, ok)
			}
		}
	}
	checked := 0
	for _, p := range dash.Panels {
		if p.Datasource.Type != "grafana-clickhouse-datasource" || len(p.Targets) != 1 {
			t.Errorf("panel %q: not one ClickHouse query", p.Title)
			continue
		}
		sql := p.Targets[0].RawSQL
		checked++
		switch p.Title {
		case "Site energy by day and tariff heading":
			// March 2024 in the site's zone: its local midnights, as a browser in Paris sends them.
			from, to := time.Date(2024, 3, 1, 0, 0, 0, 0, paris), time.Date(2024, 4, 1, 0, 0, 0, 0, paris).Add(-time.Second)
			var items []consumption.Consumption
			for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
				items = append(items, api(site0, consumption.UnitDays, d, d.AddDate(0, 0, 1))...)
			}
			checkSeries(p.Title, readSeries(grafanaSQL(t, sql, vars, from, to)), items,
				func(c consumption.Consumption) time.Time { return c.Period.StartTime })
		case "Site energy by month and tariff heading":
			// A range from mid-February to mid-April shows February, March and April whole.
			from, to := time.Date(2024, 2, 15, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 15, 0, 0, 0, 0, time.UTC)
			items := api(site0, consumption.UnitMonths, time.Date(2024, 2, 1, 0, 0, 0, 0, paris), time.Date(2024, 5, 1, 0, 0, 0, 0, paris))
			checkSeries(p.Title, readSeries(grafanaSQL(t, sql, vars, from, to)), items, func(c consumption.Consumption) time.Time {
				y, m, _ := c.Period.StartTime.Date()
				return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) // the month's Date as a DateTime
			})
		case "Top sites of the tenant":
			from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC)
			type top struct {
				site string
				kwh  float64
			}
			got := scan(t, db, grafanaSQL(t, sql, vars, from, to), func(r schema.RowScanner) (top, error) {
				var x top
				return x, r.Scan(&x.site, &x.kwh)
			})
			if len(got) != 2 || got[0].kwh < got[1].kwh {
				t.Fatalf("%s: %+v", p.Title, got)
			}
			for _, x := range got {
				s, _ := reg.Site(ctx, bench.Tenant, x.site)
				year := api(s, consumption.UnitYears, time.Date(2024, 1, 1, 0, 0, 0, 0, paris), time.Date(2025, 1, 1, 0, 0, 0, 0, paris))
				if w := *year[0].EnergyMeter.Total / 1000; !near(x.kwh, w) {
					t.Errorf("%s: %s %v kWh, the API's 2024 %v", p.Title, x.site, x.kwh, w)
				}
			}
		case "Data completeness: sites with yesterday's reading":
			// The range ends on July 1st: June 30th is complete for B0000 and B0001, not B9999.
			got := scan(t, db, grafanaSQL(t, sql, vars, at(1), time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)), func(r schema.RowScanner) (float64, error) {
				var v float64
				return v, r.Scan(&v)
			})
			if len(got) != 1 || got[0] != 66.7 {
				t.Errorf("%s: %v, want 66.7", p.Title, got)
			}
		case "Archive jobs by state":
			got := scan(t, db, grafanaSQL(t, sql, vars, at(1), at(30)), func(r schema.RowScanner) (string, error) {
				var state string
				var n uint64
				err := r.Scan(&state, &n)
				return fmt.Sprintf("%s=%d", state, n), err
			})
			if strings.Join(got, " ") != "DONE=2 ERROR=1" {
				t.Errorf("%s: %v, want DONE=2 ERROR=1", p.Title, got)
			}
		default:
			t.Errorf("panel %q is not checked by this test", p.Title)
			checked--
		}
	}
	if checked != 5 {
		t.Errorf("%d panels checked, want 5", checked)
	}
}
