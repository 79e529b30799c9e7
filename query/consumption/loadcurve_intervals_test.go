package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// TestCurveSumsJoinAPointsPieces: a point that crosses an interval boundary inside one step,
// heading and day is one piece for the engine, priced once; from ClickHouse's sums it comes as
// one piece per interval, which curveSums joins before pricing. 1,000,000 + 2,000,003 W·s at
// 0.27 EUR/kWh: priced once 0.225000225, priced in two parts 0.22500022500000003 in floats.
func TestCurveSumsJoinAPointsPieces(t *testing.T) {
	tariff := &registry.Tariff{DefaultHeading: "BASE", Prices: []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.27}}}}
	start := pt("2024-01-10T10:00")
	g := curveGrid{start: start, step: 3600, count: 3}
	b := &itemBuilder{loc: parisLoc, tariff: tariff, pricing: newPricing(tariff, parisLoc)}
	tou := newTimeOfUse(tariff, parisLoc)
	point := start.Add(30 * time.Minute).Unix()
	cases := []struct {
		name       string
		second     int64 // begin of the piece in the second interval
		cost       float64
		aggregated bool
	}{
		{"one point", point, float64(3000003) / 3600 / 1000 * 0.27, false},
		{"two points", point + 3600, float64(1000000)/3600/1000*0.27 + float64(2000003)/3600/1000*0.27, true},
	}
	for _, c := range cases {
		rows := []curveInterval{
			{j: 0, covered: 1800, real: 1800, begins: []int64{point}, ws: []int64{1000000}},
			{j: 1, covered: 1800, real: 1800, begins: []int64{c.second}, ws: []int64{2000003}},
		}
		s := b.curveSums(rows, g, tou)
		if len(s.costs) != 1 || s.costs[0].value != c.cost || s.aggregated != c.aggregated {
			t.Errorf("%s: costs %v aggregated %v, want %v %v", c.name, s.costs, s.aggregated, c.cost, c.aggregated)
		}
		if len(s.byHeading) != 1 || s.byHeading[0].value != float64(3000003)/3600 || s.covered != time.Hour {
			t.Errorf("%s: energy %v covered %v, want %v Wh, 1h", c.name, s.byHeading, s.covered, float64(3000003)/3600)
		}
	}
}
