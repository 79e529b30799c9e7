package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"energy/apidocs"
	"energy/query/advices"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// adviceAPI is a real recommendation API on a fresh database, with a token of scope advices.
func adviceAPI(t *testing.T) (string, string) {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	svc := advices.NewService(db, advices.Config{})
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	handler, _ := apidocs.NewAdvice(apidocs.Config{Registry: reg, Advices: svc, Ready: func(context.Context) error { return nil }})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	token, _, err := reg.CreateToken(context.Background(), "acme", []string{"advices"}, 0, "test")
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL, token
}

// TestAdvicesCommandPrintsTables: the catalog's example, submitted, waited for and printed.
func TestAdvicesCommandPrintsTables(t *testing.T) {
	api, token := adviceAPI(t)
	c := testClient(t, api, token)
	var progressOut bytes.Buffer
	body := []byte(`[{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21,
		"HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false, "HOUSING_SURFACE": 100, "SPA": 1}},
		{"input": {"HOUSING_WATER_HEATER": "ELEC_TANK", "HOUSING_OCCUPANTS": 2}}]`)
	job, err := c.runAdviceJob(context.Background(), body, plainProgress(&progressOut))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printAdviceJob(&out, job)
	got := out.String()
	for _, want := range []string{
		": DONE",
		"[0] GAS heating 12000 kWh/year at 0.1100 EUR/kWh, energy class C (120.00 kWh primary/m²)",
		"not advised: ROOF_INSULATION (MISSING_INPUT:HOUSING_TYPE)",
		"unknown inputs: SPA",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Table rows, compared field by field: code, rate, basis, kWh, EUR.
	var rows []string
	for _, line := range strings.Split(got, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.Contains(f[0], "_") || f[0] == "TOTAL") && len(f) >= 3 {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	want := []string{
		"LOWER_HEATING_SETPOINT 0.14 12000.00 1680.00 184.80",
		"PROGRAMMABLE_THERMOSTAT 0.1 12000.00 1200.00 132.00",
		"TOTAL 2712.00 298.32",
		// 800 × 2 × 0.6 = 960 kWh at 0.2516 = 241.54 EUR
		"HEAT_PUMP_WATER_HEATER 0.6 1600.00 960.00 241.54",
		"TOTAL 960.00 241.54",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("table rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(progressOut.String(), "DONE after") {
		t.Errorf("progress %q does not tell when the job ended", progressOut.String())
	}
}

// TestAdvicesCommandReportsBadInput: a refused body is an error naming the element and key.
func TestAdvicesCommandReportsBadInput(t *testing.T) {
	api, token := adviceAPI(t)
	file := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(file, []byte(`[{"input": {"HOUSING_SURFACE": -1}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runAdvices(context.Background(), []string{"--api", api, "--token", token, file})
	if err == nil || !strings.Contains(err.Error(), "[0].input.HOUSING_SURFACE") {
		t.Fatalf("error %v, want one naming [0].input.HOUSING_SURFACE", err)
	}
	err = runAdvices(context.Background(), []string{"--api", api, "--token", "nope", file})
	if err == nil || !strings.Contains(err.Error(), "--scopes advices") {
		t.Fatalf("error %v, want advice on the token", err)
	}
}
