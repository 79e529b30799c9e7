package contract

import (
	"encoding/json"
	"energy/schema/registry"
	"errors"
	"testing"
)

// The week's prices (hand-computed):
//   BASE:  171 kWh × 0.2016 = 34.4736 EUR; + 7 × 0.40 = 37.2736 → 37.27 (6 kVA), + 7 × 0.50 = 37.9736 → 37.97 (9 kVA)
//   HPHC:  57.5 × 0.1635 + 113.5 × 0.2146 = 9.40125 + 24.3571 = 33.75835; + 7 × 0.55 = 37.60835 → 37.61
//   TEMPO: HCJB 24 kWh, HPJB 48, HCJW 17.5, HPJW 32, HCJR 16, HPJR 33.5 (colour days from 06:00):
//          3.1104 + 7.7232 + 2.6005 + 6.0608 + 2.5088 + 25.3327 = 47.3364; + 7 × 0.52 = 50.9764 → 50.98
// Against HPHC-9 (37.61): BASE-6 −0.34 (−0.90 %), BASE-9 +0.36 (0.96 %), TEMPO-9 +13.37 (35.55 %).

func TestSimulationFromIndexes(t *testing.T) {
	f := newFixture(t)
	res, err := f.simulate("BASE-6", "BASE-9")
	if err != nil {
		t.Fatal(err)
	}
	// Single-heading candidates and the site's own HPHC tariff: the indexes price them all.
	want := `{"period":{"startTime":"2025-01-06T00:00:00+01:00","endTime":"2025-01-13T00:00:00+01:00"},"energySource":"INDEXES","quality":100,"reference":"HPHC-9",` +
		`"maxPower":{"value":7000,"date":"2025-01-09"},"simulations":[` +
		`{"tariffId":"BASE-6","option":"BASE","subscribedPowerKva":6,"status":"INSUFFICIENT_POWER","energyMeter":{"total":171000,"byTariffHeading":{"BASE":171000}},` +
		`"cost":{"total":37.27,"energy":34.47,"standingCharge":2.8,"byTariffHeading":{"BASE":34.47}},"overrunDays":2,"differenceVsReference":{"cost":-0.34,"rate":-0.9},"cheapest":false},` +
		`{"tariffId":"HPHC-9","option":"HPHC","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":171000,"byTariffHeading":{"HC":57500,"HP":113500}},` +
		`"cost":{"total":37.61,"energy":33.76,"standingCharge":3.85,"byTariffHeading":{"HC":9.4,"HP":24.36}},"overrunDays":0,"differenceVsReference":{"cost":0,"rate":0},"cheapest":true},` +
		`{"tariffId":"BASE-9","option":"BASE","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":171000,"byTariffHeading":{"BASE":171000}},` +
		`"cost":{"total":37.97,"energy":34.47,"standingCharge":3.5,"byTariffHeading":{"BASE":34.47}},"overrunDays":0,"differenceVsReference":{"cost":0.36,"rate":0.96},"cheapest":false}]}`
	checkJSON(t, res, want)
}

func TestSimulationFromLoadCurve(t *testing.T) {
	f := newFixture(t)
	// TEMPO's six headings are not the HPHC meter's two dials: every candidate comes from the load curve.
	res, err := f.simulate("BASE-6", "BASE-9", "HPHC-9", "TEMPO-9")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"period":{"startTime":"2025-01-06T00:00:00+01:00","endTime":"2025-01-13T00:00:00+01:00"},"energySource":"LOAD_CURVE","quality":100,"reference":"HPHC-9",` +
		`"maxPower":{"value":7000,"date":"2025-01-09"},"simulations":[` +
		`{"tariffId":"BASE-6","option":"BASE","subscribedPowerKva":6,"status":"INSUFFICIENT_POWER","energyMeter":{"total":171000,"byTariffHeading":{"BASE":171000}},` +
		`"cost":{"total":37.27,"energy":34.47,"standingCharge":2.8,"byTariffHeading":{"BASE":34.47}},"overrunDays":2,"differenceVsReference":{"cost":-0.34,"rate":-0.9},"cheapest":false},` +
		`{"tariffId":"HPHC-9","option":"HPHC","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":171000,"byTariffHeading":{"HC":57500,"HP":113500}},` +
		`"cost":{"total":37.61,"energy":33.76,"standingCharge":3.85,"byTariffHeading":{"HC":9.4,"HP":24.36}},"overrunDays":0,"differenceVsReference":{"cost":0,"rate":0},"cheapest":true},` +
		`{"tariffId":"BASE-9","option":"BASE","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":171000,"byTariffHeading":{"BASE":171000}},` +
		`"cost":{"total":37.97,"energy":34.47,"standingCharge":3.5,"byTariffHeading":{"BASE":34.47}},"overrunDays":0,"differenceVsReference":{"cost":0.36,"rate":0.96},"cheapest":false},` +
		`{"tariffId":"TEMPO-9","option":"TEMPO","subscribedPowerKva":9,"status":"OK","energyMeter":{"total":171000,` +
		`"byTariffHeading":{"HCJB":24000,"HCJR":16000,"HCJW":17500,"HPJB":48000,"HPJR":33500,"HPJW":32000}},` +
		`"cost":{"total":50.98,"energy":47.34,"standingCharge":3.64,"byTariffHeading":{"HCJB":3.11,"HCJR":2.51,"HCJW":2.6,"HPJB":7.72,"HPJR":25.33,"HPJW":6.06}},` +
		`"overrunDays":0,"differenceVsReference":{"cost":13.37,"rate":35.55},"cheapest":false}]}`
	checkJSON(t, res, want)
}

func TestSimulationMissingColourDayNotComputable(t *testing.T) {
	f := newFixture(t, "2025-01-09")
	res, err := f.simulate("TEMPO-9", "BASE-9")
	if err != nil {
		t.Fatal(err)
	}
	last := res.Simulations[len(res.Simulations)-1]
	if res.EnergySource != SourceLoadCurve || last.TariffID != "TEMPO-9" || last.Status != StatusNotComputable || last.Cost != nil ||
		last.DifferenceVsReference != nil || last.Cheapest ||
		last.Reason != "colour day 2025-01-09 is missing from day-colour calendar TEMPO" || last.EnergyMeter.Total != 171000 {
		t.Errorf("TEMPO without the colour of 9 January: %+v", last)
	}
	if first := res.Simulations[0]; first.TariffID != "HPHC-9" || !first.Cheapest {
		t.Errorf("cheapest: %+v", first)
	}
}

func TestSimulationWithoutEnoughLoadCurve(t *testing.T) {
	f := newFixture(t)
	cands := []string{"TEMPO-9"}
	_, err := f.engine.Compute(t.Context(), f.site, Request{Start: at("2025-01-10T00:00"), End: at("2025-01-20T00:00"), Candidates: f.tariffs(cands...)})
	var ie *InsufficientDataError
	// 3 of 10 days covered: 30 %.
	if !errors.As(err, &ie) || ie.Quality != 30 || ie.Covered != 30 {
		t.Fatalf("want InsufficientDataError at 30 %%, got %v", err)
	}
}

func (f *fixture) tariffs(ids ...string) []registry.Tariff {
	f.t.Helper()
	var out []registry.Tariff
	for _, id := range ids {
		t, err := f.reg.Tariff(f.t.Context(), "acme", id)
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, t)
	}
	return out
}

func checkJSON(t *testing.T, res *Simulations, want string) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
}
