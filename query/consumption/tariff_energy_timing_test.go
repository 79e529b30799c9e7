package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// BenchmarkPriceLoadCurve is the pass of a tariff simulation over a year of 30-minute points
// under 11 tariffs (BASE, HPHC and TEMPO on a calendar), without the read.
func BenchmarkPriceLoadCurve(b *testing.B) {
	start, end := pd("2025-01-01"), pd("2026-01-01")
	var points []loadCurvePoint
	for t := start; t.Before(end); t = t.Add(30 * time.Minute) {
		points = append(points, loadCurvePoint{pod: "P", begin: t, end: t.Add(30 * time.Minute), watts: 1000 + int64(t.Hour())*50})
	}
	var days []registry.DayColour
	for d := start.AddDate(0, 0, -1); d.Before(end); d = d.AddDate(0, 0, 1) {
		days = append(days, registry.DayColour{Date: d.Format(time.DateOnly), Colour: []string{"BLUE", "WHITE", "RED"}[d.YearDay()%3]})
	}
	colourDays := registry.NewColourDays(360, days)
	var tariffs []*registry.Tariff
	var colours []*registry.ColourDays
	for i := range 11 {
		var t registry.Tariff
		switch i % 3 {
		case 0:
			t = baseTariff()
		case 1:
			t = colourTempoTariff("T", "TEMPO")
		default:
			t = baseTariff()
			t.DialHeadings = map[string]string{"1": "HC", "2": "HP"}
			t.DefaultHeading = "HP"
			t.TimeOfUse = []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}}
			t.Prices = []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"HC": 0.16, "HP": 0.21}}}
		}
		tariffs = append(tariffs, &t)
		if t.DayColourCalendarID != "" {
			colours = append(colours, colourDays)
		} else {
			colours = append(colours, nil)
		}
	}
	b.ResetTimer()
	for range b.N {
		priceLoadCurve(points, start, end, parisLoc, tariffs, colours)
	}
}
