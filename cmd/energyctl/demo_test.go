package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"energy/apidocs"
	"energy/ingest"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestDemoLoadsThroughTheService runs the demo against the real API and intake on ClickHouse:
// every job ends DONE with no KO operation, the tables hold exactly the generated rows, and
// the consumption endpoint gives back, month by month and per tariff heading, the energy of
// the generated load curves (across the meter change and the invalidated index).
func TestDemoLoadsThroughTheService(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := ingest.New(ingest.Config{DB: db, Registry: reg, SpoolDir: t.TempDir(), PollInterval: 50 * time.Millisecond, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	handler, _ := apidocs.NewMain(apidocs.Config{Registry: reg, Jobs: svc, Logger: quiet, Ready: func(context.Context) error { return nil }})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	const tenant = "demo-e2e"
	token, _, err := reg.CreateToken(ctx, tenant, []string{"admin"}, time.Hour, "test")
	if err != nil {
		t.Fatal(err)
	}
	o := demoOptions{tenant: tenant, sites: 2, year: 2025, years: 1, seed: 1, station: "07149", tariff: "demo-hphc"}
	sites := demoSites(o.sites, o.seed)
	series, err := generateDemo(sites, demoSpan{FirstYear: 2025, LastYear: 2025, StationID: o.station}, o.seed)
	if err != nil {
		t.Fatal(err)
	}
	archives, err := buildDemoArchives(series, o.year)
	if err != nil {
		t.Fatal(err)
	}
	c := testClient(t, srv.URL, token)
	var out, progressOut bytes.Buffer
	if err := loadDemo(ctx, c, db, o, sites, archives, &out, plainProgress(&progressOut)); err != nil {
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
		"weather_observations": spanDays(2024, 2025, time.UTC) * 24, "sites": len(sites)} {
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
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v2/sites/%s/fluids/elec/consumptions?startTs=2025-01-01T00:00:00&endTs=2026-01-01T00:00:00&stepUnit=MONTHS&indexStrategy=NO_ESTIMATED", srv.URL, s.Site.SiteID), nil)
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
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
