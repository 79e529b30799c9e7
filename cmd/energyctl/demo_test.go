package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"energy/apidocs"
	"energy/bench/synth"
	"energy/ingest"
	"energy/query/consumption"
	"energy/query/targets"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestDemoLoadsThroughTheService runs the demo against the real API and intake on ClickHouse:
// every job ends DONE with no KO operation, the tables hold exactly the generated rows, and
// the consumption endpoint gives back, month by month and per tariff heading, the energy of
// the generated load curves (across the meter change and the invalidated index), and the
// budget matrix of demo-site-2 comes from a model that recovers its gas's generating base,
// slope and balance point. The demo year is last year, as `make run` loads it, so that the
// budget's fit (the readings of the last 800 days) finds it whatever the date.
func TestDemoLoadsThroughTheService(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The target checker hears every job, as in energyd (no sender runs: notifications stay PENDING).
	checker := targets.NewChecker(targets.NewStore(db), targets.NewOutbox(db), reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient), nil, quiet)
	svc, err := ingest.New(ingest.Config{DB: db, Registry: reg, SpoolDir: t.TempDir(), PollInterval: 50 * time.Millisecond, Log: quiet,
		AfterStore: checker.SiteDataStored})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	handler, _ := apidocs.NewMain(apidocs.Config{Registry: reg, Jobs: svc, Logger: quiet, Ready: func(context.Context) error { return nil },
		Targets: targets.NewStore(db), Outbox: targets.NewOutbox(db)})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	const tenant = "demo-e2e"
	token, _, err := reg.CreateToken(ctx, tenant, []string{"admin"}, time.Hour, "test")
	if err != nil {
		t.Fatal(err)
	}
	year := time.Now().Year() - 1
	o := demoOptions{tenant: tenant, sites: 2, year: year, years: 1, seed: 1, station: "07149", tariff: "demo-hphc"}
	sites := demoSites(o.sites, o.seed)
	series, err := generateDemo(sites, demoSpan{FirstYear: year, LastYear: year, StationID: o.station}, o.seed)
	if err != nil {
		t.Fatal(err)
	}
	archives, err := buildDemoArchives(series, o.year)
	if err != nil {
		t.Fatal(err)
	}
	c := testClient(t, srv.URL, token)
	var out, progressOut bytes.Buffer
	if err := loadDemo(ctx, c, db, o, series, archives, &out, plainProgress(&progressOut)); err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out.String(), progressOut.String())
	}
	if n := strings.Count(out.String(), ": DONE in "); n != len(archives) {
		t.Fatalf("%d of %d jobs DONE:\n%s", n, len(archives), out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, " KO") && !strings.HasSuffix(line, " 0 KO") {
			t.Errorf("report line with KO operations: %q", line)
		}
	}

	// Exactly the generated rows: one per dial, per point, per record.
	var elec, points, gas, maxp int
	for _, s := range series {
		for _, r := range s.Smart {
			elec += len(r.Value)
		}
		for _, lc := range s.LoadCurves {
			points += len(lc.Values)
		}
		gas += len(s.Gas)
		maxp += len(s.MaxPowers)
	}
	for table, want := range map[string]int{"elec_indexes": elec, "load_curve_points": points, "gas_indexes": gas, "max_powers": maxp,
		"weather_observations": spanDays(year-1, year, time.UTC) * 24, "sites": len(sites)} {
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL WHERE tenant_id = ?", tenant).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if int(n) != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}

	// Gas-heated sites are priced by the demo gas tariff.
	for _, s := range sites {
		got, err := reg.Site(ctx, tenant, s.SiteID)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"GAS": "demo-hphc-gas", "ELEC": ""}[s.HeatingFluid]; got.GasTariffID != want {
			t.Errorf("%s (%s heating): gasTariffId %q, want %q", s.SiteID, s.HeatingFluid, got.GasTariffID, want)
		}
	}
	if gt, err := reg.Tariff(ctx, tenant, "demo-hphc-gas"); err != nil || gt.Option != registry.OptionGas {
		t.Fatalf("demo gas tariff %+v %v", gt, err)
	}

	// The consumption engine reads the indexes back to the generated curve energy.
	for _, s := range series {
		want := map[string][2]int64{} // month → HC, HP Wh
		for _, d := range s.Days {
			hc, hp := d.energyWh()
			m := d.Date.Format("2006-01")
			want[m] = [2]int64{want[m][0] + hc, want[m][1] + hp}
		}
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v2/sites/%s/fluids/elec/consumptions?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&stepUnit=MONTHS&indexStrategy=NO_ESTIMATED", srv.URL, s.Site.SiteID, year, year+1), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s consumptions: HTTP %d %s", s.Site.SiteID, resp.StatusCode, body)
		}
		var got struct {
			Consumptions []struct {
				Period      struct{ StartTime string }
				EnergyMeter struct {
					Total           *float64
					ByTariffHeading map[string]float64
				}
			}
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Consumptions) != 12 {
			t.Fatalf("%s: %d monthly consumptions, want 12: %s", s.Site.SiteID, len(got.Consumptions), body)
		}
		for _, cons := range got.Consumptions {
			m := cons.Period.StartTime[:7]
			w := want[m]
			if cons.EnergyMeter.Total == nil || *cons.EnergyMeter.Total != float64(w[0]+w[1]) ||
				cons.EnergyMeter.ByTariffHeading["HC"] != float64(w[0]) || cons.EnergyMeter.ByTariffHeading["HP"] != float64(w[1]) {
				t.Errorf("%s %s: energy %v %v Wh, want total %d, HC %d, HP %d", s.Site.SiteID, m,
					deref(cons.EnergyMeter.Total), cons.EnergyMeter.ByTariffHeading, w[0]+w[1], w[0], w[1])
			}
		}
	}

	// The budget line `make run` prints answers from the model fitted on demo-site-2's daily gas
	// readings (across its meter change and invalidated index). The readings follow the model
	// exactly but for the index resolution (1 dm³, about 0.011 kWh a day), so the fit finds the
	// generating balance point exactly and the base and slope within 0.1 %, with R² above 0.9999,
	// over the demo year's 365 days.
	checkDemoBudget(t, srv.URL, token, year)
	checkDemoSimulation(t, srv.URL, token, year)
	checkDemoTarget(t, ctx, c, db, o, series[0])
}

// checkDemoTarget: demo-site-1 has the demo target, 80 % of its generated energy of the year,
// and the readings overran it: one THRESHOLD_OVERRUN notification per channel, to the demo
// contact. Creating it again finds the same target.
func checkDemoTarget(t *testing.T, ctx context.Context, c *apiClient, db *schema.DB, o demoOptions, s demoSeries) {
	t.Helper()
	var wh int64
	for _, d := range s.Days {
		hc, hp := d.energyWh()
		wh += hc + hp
	}
	want := math.Floor(float64(wh)*0.8/1000/100) * 100
	ts, err := targets.NewStore(db).List(ctx, o.tenant, s.Site.SiteID)
	if err != nil || len(ts) != 1 {
		t.Fatalf("targets of %s: %+v %v, want the demo target alone", s.Site.SiteID, ts, err)
	}
	tg := ts[0]
	paris, err := time.LoadLocation(synth.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != demoTargetName || tg.TargetValue != want || tg.Unit != "KWH" || tg.NotificationType != targets.NotifyThreshold ||
		strings.Join(tg.NotificationChannels, ",") != "EMAIL,SMS" || !tg.Begin.Equal(time.Date(o.year, 1, 1, 0, 0, 0, 0, paris)) ||
		!tg.End.Equal(time.Date(o.year+1, 1, 1, 0, 0, 0, 0, paris)) {
		t.Errorf("demo target %+v: want %q, %v KWH, THRESHOLD_OVERRUN by EMAIL,SMS over %d in Paris", tg, demoTargetName, want, o.year)
	}
	ns, err := targets.NewOutbox(db).List(ctx, o.tenant, s.Site.SiteID, tg.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	channels := map[string]int{}
	for _, n := range ns {
		if n.Event != targets.NotifyThreshold {
			t.Errorf("notification %+v: want THRESHOLD_OVERRUN", n)
		}
		channels[n.Channel]++
	}
	if len(ns) != 2 || channels["EMAIL"] != 1 || channels["SMS"] != 1 {
		t.Errorf("demo target notifications %v, want one THRESHOLD_OVERRUN per channel", channels)
	}
	contact, err := registry.New(db).Contact(ctx, o.tenant, s.Site.SiteID)
	if err != nil || contact.Email != demoContact["email"] || contact.Phone != demoContact["phone"] {
		t.Errorf("contact of %s: %+v %v", s.Site.SiteID, contact, err)
	}
	again, err := putDemoTarget(ctx, c, o, s)
	if err != nil || again != tg.TargetID {
		t.Errorf("demo target created again: %q %v, want the existing %s", again, err, tg.TargetID)
	}
}

func checkDemoBudget(t *testing.T, api, token string, year int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v1/sites/demo-site-%d/budget/matrix", api, demoDailyGasSite), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("budget matrix: HTTP %d %s", resp.StatusCode, body)
	}
	var m struct {
		BudgetVectors []struct {
			T []float64
			B float64
		}
		MetaData struct {
			HeatingFluid    string
			BalancePointC   *float64
			BaseKwhPerDay   float64
			KwhPerDegreeDay float64
			R2              float64
			FitPeriod       struct{ From, To string }
			CoveredDays     float64
			Intervals       int
		}
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	md := m.MetaData
	t.Logf("demo-site-%d: balance point %v °C, base %.4f kWh/day, slope %.4f kWh/DD, R² %.6f", demoDailyGasSite, deref(md.BalancePointC), md.BaseKwhPerDay, md.KwhPerDegreeDay, md.R2)
	if md.HeatingFluid != "GAS" || md.BalancePointC == nil || *md.BalancePointC != demoHeatBaseC {
		t.Errorf("fluid %s, balance point %v °C, want GAS and %v", md.HeatingFluid, deref(md.BalancePointC), demoHeatBaseC)
	}
	if math.Abs(md.BaseKwhPerDay/demoGasBaseKWhPerDay-1) > 0.001 || math.Abs(md.KwhPerDegreeDay/demoGasKWhPerDegreeDay-1) > 0.001 || md.R2 < 0.9999 {
		t.Errorf("base %v kWh/day, slope %v kWh/DD, R² %v; want %v and %v within 0.1 %%, R² ≥ 0.9999",
			md.BaseKwhPerDay, md.KwhPerDegreeDay, md.R2, demoGasBaseKWhPerDay, demoGasKWhPerDegreeDay)
	}
	if from, to := fmt.Sprintf("%d-01-01", year), fmt.Sprintf("%d-12-31", year); md.FitPeriod.From != from || md.FitPeriod.To != to || md.Intervals != 365 || md.CoveredDays != 365 {
		t.Errorf("fit period %+v, %d intervals, %v days; want %s to %s, 365 daily intervals", md.FitPeriod, md.Intervals, md.CoveredDays, from, to)
	}
	if len(m.BudgetVectors) != 25 || m.BudgetVectors[0].B <= 0 || m.BudgetVectors[24].B <= m.BudgetVectors[0].B {
		t.Errorf("budget vectors %+v: want 25, growing from [18, 14] to [22, 18]", m.BudgetVectors)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
