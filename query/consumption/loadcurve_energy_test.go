package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// TestLoadCurveEnergyInWholeWattSeconds: 10-minute points add up exactly. From 21:00 to 23:00
// local, 1,000 W throughout: HP (before 22:00) as two 30-minute points, HC as six 10-minute
// ones. Each heading is 1,000 W × 3,600 s = 3,600,000 W·s = 1,000 Wh exactly, so the ratios
// are exactly 0.5. Summed as W × hours in floats, six times 1,000 × 1/6 h is
// 999.9999999999999 and the HC ratio printed unrounded would not be 0.5.
func TestLoadCurveEnergyInWholeWattSeconds(t *testing.T) {
	tariff := &registry.Tariff{
		HeadingGroups:  map[string]string{"HC": "HC", "HP": "HP"},
		TimeOfUse:      []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		DefaultHeading: "HP",
		Prices:         []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"HC": 0.2, "HP": 0.3}}},
	}
	start := pt("2024-01-10T21:00")
	var points []loadCurvePoint
	for b := start; b.Before(start.Add(time.Hour)); b = b.Add(30 * time.Minute) {
		points = append(points, loadCurvePoint{pod: "PDL1", begin: b, end: b.Add(30 * time.Minute), watts: 1000})
	}
	for b := start.Add(time.Hour); b.Before(start.Add(2 * time.Hour)); b = b.Add(10 * time.Minute) {
		points = append(points, loadCurvePoint{pod: "PDL1", begin: b, end: b.Add(10 * time.Minute), watts: 1000})
	}
	steps := []Step{{start, start.Add(2 * time.Hour)}}
	b := &itemBuilder{loc: parisLoc, tariff: tariff, ratios: true, perWh: 1, energyDecimals: energyDecimals, pricing: newPricing(tariff, parisLoc)}
	it := b.build(steps[0], loadCurvePieces(points, steps, newTimeOfUse(tariff, parisLoc, nil))[0])
	if got := it.EnergyMeter.ByTariffHeading; got["HC"] != 1000 || got["HP"] != 1000 || *it.EnergyMeter.Total != 2000 {
		t.Errorf("energy %v total %v, want HC 1000, HP 1000, total 2000", got, *it.EnergyMeter.Total)
	}
	if r := it.Ratios.ByTariffHeading; r["HC"] != 0.5 || r["HP"] != 0.5 {
		t.Errorf("ratios %v, want exactly 0.5 each", r)
	}
	// Cost: 1 kWh at 0.2 and 1 kWh at 0.3, priced piece by piece.
	if c := it.Cost.ByTariffHeading; c["HC"] != 0.2 || c["HP"] != 0.3 {
		t.Errorf("cost %v, want HC 0.2, HP 0.3", c)
	}
	if !it.Aggregated || it.Status != StatusComplete || it.Quality != 100 {
		t.Errorf("aggregated %v status %s quality %v, want true COMPLETE 100", it.Aggregated, it.Status, it.Quality)
	}
}

// TestWattSeconds: whole seconds are exact; a rest under a second rounds to the W·s.
func TestWattSeconds(t *testing.T) {
	cases := []struct {
		watts int64
		d     time.Duration
		want  int64
	}{
		{1000, 10 * time.Minute, 600_000},
		{-250, time.Hour, -900_000},
		{7, 1500 * time.Millisecond, 11}, // 10.5 rounds away from zero
		{3, 100 * time.Millisecond, 0},
	}
	for _, c := range cases {
		if got := wattSeconds(c.watts, c.d); got != c.want {
			t.Errorf("wattSeconds(%d, %v) = %d, want %d", c.watts, c.d, got, c.want)
		}
	}
}
