package consumption

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"energy/schema/registry"
)

// tempoTariff: six dials, three heading groups (blue, white, red days), carbon 0.05 kgCO2e/kWh,
// no standing charge.
func tempoTariff() registry.Tariff {
	coef := 0.05
	return registry.Tariff{
		TariffID: "TEMPO-2024", Option: registry.OptionTempo,
		DialHeadings: map[string]string{"1": "HCJB", "2": "HPJB", "3": "HCJW", "4": "HPJW", "5": "HCJR", "6": "HPJR"},
		HeadingGroups: map[string]string{"HCJB": "BLEU", "HPJB": "BLEU", "HCJW": "BLANC", "HPJW": "BLANC",
			"HCJR": "ROUGE", "HPJR": "ROUGE"},
		Prices: []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{
			"HCJB": 0.1296, "HPJB": 0.1609, "HCJW": 0.1486, "HPJW": 0.1894, "HCJR": 0.1568, "HPJR": 0.7562}}},
		CarbonCoefficient: &coef,
	}
}

// TestConsumptionTempoRatios: readings at local midnights of 01-08..01-11 on six dials; day 1
// is blue (HCJB +4000, HPJB +6000), day 2 white (HCJW +3000, HPJW +5000), day 3 red (HCJR
// +2000, HPJR +8000).
//
//	day 1: 10 000 Wh; 4 × 0.1296 + 6 × 0.1609 = 0.5184 + 0.9654 = 1.4838 EUR; HCJB 0.4, HPJB 0.6; BLEU 1
//	day 2:  8 000 Wh; 3 × 0.1486 + 5 × 0.1894 = 0.4458 + 0.9470 = 1.3928 EUR; HCJW 0.375, HPJW 0.625; BLANC 1
//	day 3: 10 000 Wh; 2 × 0.1568 + 8 × 0.7562 = 0.3136 + 6.0496 = 6.3632 EUR; HCJR 0.2, HPJR 0.8; ROUGE 1
//	global: 28 000 Wh, 9.2398 EUR; BLEU 10/28, BLANC 8/28, ROUGE 10/28; carbon 28 × 0.05 = 1.4 kg.
func TestConsumptionTempoRatios(t *testing.T) {
	f := newConsumptionFixture(t)
	f.tariff(tempoTariff())
	cum := map[string][]int64{
		"1": {0, 4000, 4000, 4000}, "2": {0, 6000, 6000, 6000},
		"3": {0, 0, 3000, 3000}, "4": {0, 0, 5000, 5000},
		"5": {0, 0, 0, 2000}, "6": {0, 0, 0, 8000},
	}
	var rows []idxRow
	for dial, vs := range cum {
		rows = append(rows, dailyIndexes("2024-01-08", dial, vs...)...)
	}
	f.indexes(rows...)
	req := days("2024-01-08", "2024-01-11")
	req.WithRatioByTariffHeading, req.WithGlobalConsumption, req.WithCarbonFootprint = true, true, true
	res := f.compute(req)

	zero := map[string]float64{"HCJB": 0, "HPJB": 0, "HCJW": 0, "HPJW": 0, "HCJR": 0, "HPJR": 0}
	with := func(kv map[string]float64) map[string]float64 {
		m := map[string]float64{}
		for k, v := range zero {
			m[k] = v
		}
		for k, v := range kv {
			m[k] = v
		}
		return m
	}
	checkItems(t, res.Consumptions, []wantItem{
		{wh: ptr(10000), byHeading: with(map[string]float64{"HCJB": 4000, "HPJB": 6000}), eur: ptr(1.4838), standing: ptr(0), aggregated: isFalse()},
		{wh: ptr(8000), byHeading: with(map[string]float64{"HCJW": 3000, "HPJW": 5000}), eur: ptr(1.3928)},
		{wh: ptr(10000), byHeading: with(map[string]float64{"HCJR": 2000, "HPJR": 8000}), eur: ptr(6.3632)},
	})
	checkItem(t, "global", *res.GlobalConsumption, wantItem{wh: ptr(28000), eur: ptr(9.2398), aggregated: isTrue()})

	wantRatios := []struct {
		byHeading, byGroup map[string]float64
		carbon             float64
	}{
		{with(map[string]float64{"HCJB": 0.4, "HPJB": 0.6}), map[string]float64{"BLEU": 1, "BLANC": 0, "ROUGE": 0}, 0.5},
		{with(map[string]float64{"HCJW": 0.375, "HPJW": 0.625}), map[string]float64{"BLEU": 0, "BLANC": 1, "ROUGE": 0}, 0.4},
		{with(map[string]float64{"HCJR": 0.2, "HPJR": 0.8}), map[string]float64{"BLEU": 0, "BLANC": 0, "ROUGE": 1}, 0.5},
		{with(map[string]float64{"HCJB": 4.0 / 28, "HPJB": 6.0 / 28, "HCJW": 3.0 / 28, "HPJW": 5.0 / 28, "HCJR": 2.0 / 28, "HPJR": 8.0 / 28}),
			map[string]float64{"BLEU": 10.0 / 28, "BLANC": 8.0 / 28, "ROUGE": 10.0 / 28}, 1.4},
	}
	items := append(append([]Consumption(nil), res.Consumptions...), *res.GlobalConsumption)
	for i, it := range items {
		w := wantRatios[i]
		if it.Ratios == nil {
			t.Fatalf("item %d: no ratios", i)
		}
		if !sameMap(it.Ratios.ByTariffHeading, w.byHeading) || !sameMap(it.Ratios.ByTariffHeadingGroup, w.byGroup) {
			t.Errorf("item %d: ratios %v / %v, want %v / %v", i, it.Ratios.ByTariffHeading, it.Ratios.ByTariffHeadingGroup, w.byHeading, w.byGroup)
		}
		for name, m := range map[string]map[string]float64{"byTariffHeading": it.Ratios.ByTariffHeading, "byTariffHeadingGroup": it.Ratios.ByTariffHeadingGroup} {
			var sum float64
			for _, v := range m {
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("item %d: %s sums to %v, want 1 ± 1e-9", i, name, sum)
			}
		}
		if cf := it.CarbonFootprint; cf == nil || cf.Coefficient != 0.05 || cf.Total == nil || !nearly(*cf.Total, w.carbon) {
			t.Errorf("item %d: carbonFootprint %+v, want coefficient 0.05 and total %v kg", i, cf, w.carbon)
		}
	}
}

// TestConsumptionWindowOf1200: 60 days of hours (1 440 steps) of a constant 1000 W load curve.
// The first 1 200 hours are returned, 1000 Wh each (0.25 EUR + 1/24 EUR of standing charge);
// computationPeriod ends after 1 200 h = 50 days, at 02-20 00:00, where a client continues.
// The global item covers the whole period: 1 440 000 Wh, 360 + 60 = 420 EUR.
func TestConsumptionWindowOf1200(t *testing.T) {
	f := newConsumptionFixture(t)
	f.tariff(baseTariff())
	f.loadCurve(constantLoadCurve(pd("2024-01-01"), pd("2024-03-01"), 30*time.Minute, 1000)...)
	res := f.compute(Request{Start: pd("2024-01-01"), End: pd("2024-03-01"), StepUnit: UnitHours, StepValue: 1, WithGlobalConsumption: true})
	if len(res.Consumptions) != MaxSteps {
		t.Fatalf("%d items, want %d", len(res.Consumptions), MaxSteps)
	}
	for _, it := range res.Consumptions {
		checkItem(t, it.Period.StartTime.Format(time.RFC3339), it, wantItem{wh: ptr(1000), eur: ptr(roundTo(0.25+1.0/24, moneyDecimals)), status: StatusComplete, quality: ptr(100)})
	}
	if last := res.Consumptions[MaxSteps-1].Period.EndTime; !last.Equal(pd("2024-02-20")) {
		t.Errorf("last item ends %s, want 2024-02-20T00:00:00+01:00", last.Format(time.RFC3339))
	}
	checkComputationPeriod(t, res, "2024-01-01T00:00", "2024-02-20T00:00")
	checkItem(t, "global", *res.GlobalConsumption, wantItem{start: "2024-01-01T00:00", end: "2024-03-01T00:00", wh: ptr(1440000), eur: ptr(420), standing: ptr(60), status: StatusComplete})
}

// TestConsumptionCarbonAndJSON: a site without tariff takes the service default coefficient
// (0.06 in the fixture): 700 + 300 Wh → 0.06 kg; the day without data has a null total. The
// encoded answer carries the site's offset, nulls and no cost member.
func TestConsumptionCarbonAndJSON(t *testing.T) {
	f := newConsumptionFixture(t)
	f.indexes(append(dailyIndexes("2024-03-30", "1", 0, 700), dailyIndexes("2024-03-30", "2", 0, 300)...)...)
	req := days("2024-03-30", "2024-04-01")
	req.WithCarbonFootprint, req.WithRatioByTariffHeading = true, true
	res := f.compute(req)
	checkItems(t, res.Consumptions, []wantItem{
		{wh: ptr(1000), byHeading: map[string]float64{"1": 700, "2": 300}},
		{wh: nil, status: StatusNoData, quality: ptr(0), flags: []string{FlagMissingData}},
	})
	if cf := res.Consumptions[0].CarbonFootprint; cf == nil || cf.Coefficient != 0.06 || cf.Total == nil || !nearly(*cf.Total, 0.06) {
		t.Errorf("carbonFootprint %+v, want 0.06 kg at 0.06 kgCO2e/kWh", cf)
	}
	if cf := res.Consumptions[1].CarbonFootprint; cf == nil || cf.Total != nil {
		t.Errorf("no-data carbonFootprint %+v, want a null total", cf)
	}
	if r := res.Consumptions[0].Ratios; r == nil || !sameMap(r.ByTariffHeading, map[string]float64{"1": 0.7, "2": 0.3}) {
		t.Errorf("ratios %+v, want 1: 0.7, 2: 0.3 (dials are their own groups)", r)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`"period":{"startTime":"2024-03-30T00:00:00+01:00","endTime":"2024-04-01T00:00:00+02:00"}`,
		`"step":"P1D"`,
		`"units":{"cost":"EUR","energyMeter":"Wh","carbonFootprint":"kgCO2e"}`,
		`"energyMeter":{"total":null,"byTariffHeading":{}}`,
		`"status":"NO_DATA"`,
		`"computationPeriod":{"startTime":"2024-03-30T00:00:00+01:00","endTime":"2024-03-31T00:00:00+01:00"}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, `"cost"`) && !strings.Contains(s, `"units":{"cost"`) || strings.Count(s, `"cost"`) > 1 {
		t.Errorf("a site without tariff has no cost member:\n%s", s)
	}
}
