package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// checkDemoSimulation asks the simulation that make run prints for demo-site-1 (electrically
// heated): every candidate is priced from the load curve (TEMPO's headings are not the HPHC
// meter's dials), the demo's peaks exceed 6 kVA on a few cold days and never 9 kVA, and one
// 9 kVA tariff is the cheapest.
func checkDemoSimulation(t *testing.T, api, token string, year int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v2/sites/demo-site-1/fluids/elec/tariff-simulations?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&tariffIds=%s",
		api, year, year+1, strings.Join(demoSimulatedTariffs, ",")), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tariff simulation: HTTP %d %s", resp.StatusCode, body)
	}
	var res struct {
		EnergySource string
		Quality      float64
		Reference    string
		Simulations  []struct {
			TariffID    string
			Status      string
			OverrunDays *int
			Cheapest    bool
			Cost        *struct{ Total float64 }
		}
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	t.Logf("demo simulation: %s", body)
	if res.EnergySource != "LOAD_CURVE" || res.Quality < 90 || res.Reference != "demo-hphc" || len(res.Simulations) != 4 {
		t.Fatalf("simulation %s", body)
	}
	cheapest := 0
	for _, s := range res.Simulations {
		if s.Cost == nil || s.Cost.Total <= 0 || s.OverrunDays == nil {
			t.Errorf("%s: not priced or not power-checked: %s", s.TariffID, body)
			continue
		}
		if s.Cheapest {
			cheapest++
		}
		switch over := *s.OverrunDays; {
		case s.TariffID == demoBase6ID && (over < 1 || over > 10 || s.Status != "INSUFFICIENT_POWER"):
			t.Errorf("6 kVA: %d overrun days, status %s; want a few, INSUFFICIENT_POWER", over, s.Status)
		case s.TariffID != demoBase6ID && (over != 0 || s.Status != "OK"):
			t.Errorf("%s (9 kVA): %d overrun days, status %s; want 0, OK", s.TariffID, over, s.Status)
		}
	}
	if cheapest != 1 {
		t.Errorf("%d cheapest items, want 1", cheapest)
	}
}
