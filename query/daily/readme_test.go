package daily

import (
	"context"
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

// readmeQueries returns the SQL blocks of schema/README.md marked "<!-- tested: name -->".
func readmeQueries(t *testing.T) map[string]string {
	t.Helper()
	text, err := os.ReadFile("../../schema/README.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)<!-- tested: ([a-z-]+) -->\n```sql\n(.*?)```").FindAllStringSubmatch(string(text), -1) {
		out[m[1]] = strings.TrimSuffix(strings.TrimSpace(m[2]), ";")
	}
	return out
}

// TestReadmeQueriesGiveTheAPIsNumbers runs every tested example of schema/README.md on the
// benchmark's data (tenant bench, two sites, 2024) and two sites of tenant acme whose readings
// end today and two days ago, and checks their rows against the consumption engine's answers.
func TestReadmeQueriesGiveTheAPIsNumbers(t *testing.T) {
	queries := readmeQueries(t)
	for _, name := range []string{"energy-per-tenant-and-month", "top-sites", "sites-without-yesterday", "site-days-by-heading"} {
		if queries[name] == "" {
			t.Fatalf("schema/README.md has no tested query %q (found %d)", name, len(queries))
		}
	}
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 2, Year: 2024}, nil); err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	y, m, d := time.Now().UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, paris)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for site, days := range map[string][]int{"S1": {-2, -1, 0}, "S2": {-3, -2}} {
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: site, Timezone: "Europe/Paris"}); err != nil {
			t.Fatal(err)
		}
		for i, day := range days {
			if err := b.Append("acme", site, "P1", today.AddDate(0, 0, day), uint8(0), "MKT_SMART_DISTRIBUTOR", today, "1", int64(1000*i), "j"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
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
	sites := []registry.Site{}
	for i := range 2 {
		s, err := reg.Site(ctx, bench.Tenant, bench.SiteID(i))
		if err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
	}
	api := func(site registry.Site, unit string, from, to time.Time) []consumption.Consumption {
		t.Helper()
		res, err := engine.Compute(ctx, site, consumption.Request{Start: from, End: to, StepUnit: unit, StepValue: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res.Consumptions
	}
	year := [2]time.Time{time.Date(2024, 1, 1, 0, 0, 0, 0, paris), time.Date(2025, 1, 1, 0, 0, 0, 0, paris)}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

	// Energy per tenant and month: bench's 2024 months are the sum of its sites' MONTHS answers.
	type monthRow struct {
		tenant, month string
		kwh           *float64
		incomplete    uint64
	}
	months := scan(t, db, queries["energy-per-tenant-and-month"], func(r schema.RowScanner) (monthRow, error) {
		var x monthRow
		var month time.Time
		err := r.Scan(&x.tenant, &month, &x.kwh, &x.incomplete)
		x.month = month.Format("2006-01")
		return x, err
	})
	want := map[string]float64{}
	for _, s := range sites {
		for _, it := range api(s, consumption.UnitMonths, year[0], year[1]) {
			want[it.Period.StartTime.Format("2006-01")] += *it.EnergyMeter.Total / 1000
		}
	}
	seen := 0
	for _, r := range months {
		if r.tenant != bench.Tenant || !strings.HasPrefix(r.month, "2024-") {
			continue
		}
		seen++
		if r.kwh == nil || !near(*r.kwh, want[r.month]) || r.incomplete != 0 {
			t.Errorf("bench %s: %v kWh, %d incomplete sites; want %v kWh, 0", r.month, r.kwh, r.incomplete, want[r.month])
		}
	}
	if seen != 12 {
		t.Errorf("%d months of bench in 2024: %+v", seen, months)
	}

	// Top sites: the YEARS answers, highest first.
	type siteKWh struct {
		site string
		kwh  float64
	}
	top := scan(t, db, queries["top-sites"], func(r schema.RowScanner) (siteKWh, error) {
		var x siteKWh
		err := r.Scan(&x.site, &x.kwh)
		return x, err
	})
	if len(top) != 2 || top[0].kwh < top[1].kwh {
		t.Fatalf("top sites %+v", top)
	}
	for _, x := range top {
		s, _ := reg.Site(ctx, bench.Tenant, x.site)
		if w := *api(s, consumption.UnitYears, year[0], year[1])[0].EnergyMeter.Total / 1000; !near(x.kwh, w) {
			t.Errorf("top site %s: %v kWh, the API's year %v", x.site, x.kwh, w)
		}
	}

	// Sites without yesterday's reading: acme S2 (readings end two days ago) and the bench
	// sites (2024); not acme S1, read this midnight.
	missing := scan(t, db, queries["sites-without-yesterday"], func(r schema.RowScanner) (string, error) {
		var tenant, site string
		err := r.Scan(&tenant, &site)
		return tenant + "/" + site, err
	})
	if got := strings.Join(missing, " "); got != "acme/S2 bench/B0000 bench/B0001" {
		t.Errorf("sites without yesterday's reading: %s", got)
	}

	// A site's days by heading: each day's headings of the API's answer for that day.
	type dayHeading struct {
		day, heading string
		wh           float64
	}
	rows := scan(t, db, queries["site-days-by-heading"], func(r schema.RowScanner) (dayHeading, error) {
		var x dayHeading
		var day time.Time
		err := r.Scan(&day, &x.heading, &x.wh)
		x.day = day.Format(time.DateOnly)
		return x, err
	})
	got := map[string]float64{}
	for _, r := range rows {
		got[r.day+" "+r.heading] = r.wh
	}
	wantDays := map[string]float64{}
	for _, day := range []time.Time{time.Date(2024, 3, 30, 0, 0, 0, 0, paris), time.Date(2024, 3, 31, 0, 0, 0, 0, paris)} {
		for h, wh := range api(sites[0], consumption.UnitDays, day, day.AddDate(0, 0, 1))[0].EnergyMeter.ByTariffHeading {
			wantDays[day.Format(time.DateOnly)+" "+h] = wh
		}
	}
	if len(got) != len(wantDays) || len(got) < 4 {
		t.Fatalf("days by heading %v, want %v", got, wantDays)
	}
	for k, w := range wantDays {
		if !near(got[k], w) {
			t.Errorf("%s: %v Wh, the API's %v", k, got[k], w)
		}
	}
}

func scan[T any](t *testing.T, db *schema.DB, query string, row func(schema.RowScanner) (T, error)) []T {
	t.Helper()
	out, err := schema.ScanAll(context.Background(), db, row, query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	return out
}

// TestReadmeNamesEveryTable checks that schema/README.md names every table and view the
// migrations create (on a cluster, the name queried: t rather than t_local).
func TestReadmeNamesEveryTable(t *testing.T) {
	text, err := os.ReadFile("../../schema/README.md")
	if err != nil {
		t.Fatal(err)
	}
	db := chtest.DB(t)
	names := scan(t, db, "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name", func(r schema.RowScanner) (string, error) {
		var n string
		return n, r.Scan(&n)
	})
	if len(names) < 30 {
		t.Fatalf("only %d tables: %v", len(names), names)
	}
	for _, n := range names {
		n = strings.TrimSuffix(n, "_local")
		if !strings.Contains(string(text), "`"+n+"`") && !strings.Contains(string(text), "`"+strings.TrimSuffix(n, "_writer")+"`") {
			t.Errorf("schema/README.md does not name %s", n)
		}
	}
}
