package consumption

import (
	"testing"

	"energy/schema/registry"
)

// gasTariff: option GAS, 0.10 EUR/kWh until 2 January 2024, 0.12 from 3 January, and 366
// EUR/year of subscription (1 EUR a day in 2024); no carbonCoefficient (the gas default applies).
func gasTariff() registry.Tariff {
	return registry.Tariff{
		TariffID: "GAS-2024", Option: registry.OptionGas,
		Prices: []registry.PricePeriod{
			{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.10}},
			{ValidFrom: "2024-01-03", ByHeading: map[string]float64{"BASE": 0.12}},
		},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2024-01-01", Yearly: map[string]float64{"subscription": 366}}},
	}
}

// gasTariffFixture creates the gas tariff and makes it the site's gas tariff.
func (f *consumptionFixture) gasTariff(tr registry.Tariff) {
	f.t.Helper()
	tr.TenantID = fxTenant
	if err := f.reg.PutTariff(f.t.Context(), tr); err != nil {
		f.t.Fatal(err)
	}
	f.site.GasTariffID = tr.TariffID
	if err := f.reg.PutSite(f.t.Context(), f.site); err != nil {
		f.t.Fatal(err)
	}
}

// gasWeek is a week of daily gas readings (m3, Paris local midnights) with every index rule
// of the gas engine in it:
//
//	Jan 1  1000, 11.2 kWh/m3
//	Jan 2  1010, 11.2      → Jan 1: 10 m3 × 11.2 = 112 kWh
//	Jan 2 12:00  1500 then its _INVALID twin of a later generation: no reading there
//	Jan 3  1030, 10.5      → Jan 2: 20 m3 × 10.5 (the later reading's factor) = 210 kWh
//	Jan 4  1031, no factor (an earlier generation had 11: the latest generation wins)
//	                       → Jan 3: energy unknown: MISSING_CONVERSION_FACTOR, no data
//	Jan 5  1040, 11        → Jan 4: 9 m3 × 11 = 99 kWh (the factorless index still opens it)
//	Jan 6  1052, 11, old meter's last index; new meter's first index 3, 11
//	                       → Jan 5: 12 m3 × 11 = 132 kWh
//	Jan 7  23, 11          → Jan 6: 20 m3 × 11 = 220 kWh, METER_CHANGE
func gasWeek(f *consumptionFixture) {
	f.gasIndexes(
		gasRow{ts: pd("2024-01-01"), value: 1000, factor: 11.2},
		gasRow{ts: pd("2024-01-02"), value: 1010, factor: 11.2},
		gasRow{ts: pt("2024-01-02T12:00"), value: 1500, factor: 11.2},
		gasRow{ts: pt("2024-01-02T12:00"), value: 1500, factor: 11.2, nature: "MKT_CYCLIC_DISTRIBUTOR_INVALID", gen: pd("2024-01-05")},
		gasRow{ts: pd("2024-01-03"), value: 1030, factor: 10.5},
		gasRow{ts: pd("2024-01-04"), value: 1031, factor: 11, gen: pt("2024-01-04T12:00")},
		gasRow{ts: pd("2024-01-04"), value: 1031},
		gasRow{ts: pd("2024-01-05"), value: 1040, factor: 11},
		gasRow{ts: pd("2024-01-06"), value: 1052, factor: 11, before: true},
		gasRow{ts: pd("2024-01-06"), value: 3, factor: 11},
		gasRow{ts: pd("2024-01-07"), value: 23, factor: 11},
	)
}

// checkGasExtras checks the members the shared item check does not: volume (m3, null when
// nil) and carbon (kgCO2e at coefficient).
func checkGasExtras(t *testing.T, items []Consumption, volumes []*float64, coefficient float64) {
	t.Helper()
	for i, it := range items {
		label := "item " + it.Period.StartTime.String()
		switch v := volumes[i]; {
		case it.Volume == nil || it.Volume.Unit != "m3":
			t.Errorf("%s: volume %+v, want unit m3", label, it.Volume)
		case v == nil && it.Volume.Total != nil:
			t.Errorf("%s: volume %v, want null", label, *it.Volume.Total)
		case v != nil && (it.Volume.Total == nil || !nearly(*it.Volume.Total, *v)):
			t.Errorf("%s: volume %v, want %v", label, it.Volume.Total, *v)
		}
		cf := it.CarbonFootprint
		switch {
		case cf == nil || cf.Coefficient != coefficient:
			t.Errorf("%s: carbonFootprint %+v, want coefficient %v", label, cf, coefficient)
		case it.EnergyMeter.Total == nil && cf.Total != nil:
			t.Errorf("%s: carbon %v, want null", label, *cf.Total)
		case it.EnergyMeter.Total != nil && (cf.Total == nil || !nearly(*cf.Total, *it.EnergyMeter.Total*coefficient)):
			t.Errorf("%s: carbon %v, want %v kWh × %v", label, cf.Total, *it.EnergyMeter.Total, coefficient)
		}
	}
}

// Daily gas energy in kWh with a factor change, a missing factor, an invalidated index and a
// meter change; cost from the gas tariff with its price change on January 3; the gas carbon
// default. Every value worked by hand from gasWeek and gasTariff.
func TestGasConsumptionDays(t *testing.T) {
	f := newConsumptionFixture(t)
	f.gasTariff(gasTariff())
	gasWeek(f)
	res := f.compute(Request{Fluid: FluidGas, Start: pd("2024-01-01"), End: pd("2024-01-07"), StepUnit: UnitDays, StepValue: 1,
		WithCarbonFootprint: true, WithGlobalConsumption: true, WithRatioByTariffHeading: true})
	if res.Units != (Units{Cost: "EUR", EnergyMeter: "kWh", CarbonFootprint: "kgCO2e"}) || res.Step != "P1D" {
		t.Fatalf("units %+v step %s", res.Units, res.Step)
	}
	cyclic := []string{"MKT_CYCLIC_DISTRIBUTOR"}
	// cost = kWh × the day's price + 1 EUR of subscription a day.
	day := func(date, next string, kwh, price float64, flags ...string) wantItem {
		return wantItem{start: date + "T00:00", end: next + "T00:00", wh: ptr(kwh), byHeading: map[string]float64{"BASE": kwh},
			eur: ptr(kwh*price + 1), standing: ptr(1), eurHeading: map[string]float64{"BASE": kwh * price},
			status: StatusComplete, nature: NatureReal, quality: ptr(100), flags: flags, natures: cyclic, aggregated: isFalse(), loadCurve: isFalse()}
	}
	checkItems(t, res.Consumptions, []wantItem{
		day("2024-01-01", "2024-01-02", 112, 0.10), // 11.2 + 1 = 12.2 EUR
		day("2024-01-02", "2024-01-03", 210, 0.10), // 21 + 1 = 22 EUR
		{start: "2024-01-03T00:00", wh: nil, status: StatusNoData, quality: ptr(0), // the factorless reading closes Jan 3
			flags: []string{FlagMissingData, FlagMissingConversionFactor}},
		day("2024-01-04", "2024-01-05", 99, 0.12),                   // 11.88 + 1 = 12.88 EUR
		day("2024-01-05", "2024-01-06", 132, 0.12),                  // 15.84 + 1 = 16.84 EUR
		day("2024-01-06", "2024-01-07", 220, 0.12, FlagMeterChange), // 26.4 + 1 = 27.4 EUR
	})
	checkGasExtras(t, res.Consumptions, []*float64{ptr(10), ptr(20), nil, ptr(9), ptr(12), ptr(20)}, DefaultGasCarbonCoefficient)
	if r := res.Consumptions[0].Ratios; r == nil || r.ByTariffHeading["BASE"] != 1 || r.ByTariffHeadingGroup["BASE"] != 1 {
		t.Errorf("ratios %+v, want BASE 1", r)
	}
	checkComputationPeriod(t, res, "", "")

	// The week: 773 kWh, 71 m3, 11.2 + 21 + 11.88 + 15.84 + 26.4 = 86.32 EUR of energy + 6 days.
	checkItem(t, "global", *res.GlobalConsumption, wantItem{wh: ptr(773), eur: ptr(92.32), standing: ptr(6), eurHeading: map[string]float64{"BASE": 86.32},
		status: StatusPartial, quality: ptr(83.33), flags: []string{FlagMissingData, FlagMeterChange, FlagMissingConversionFactor}, aggregated: isTrue()})
	checkGasExtras(t, []Consumption{*res.GlobalConsumption}, []*float64{ptr(71)}, DefaultGasCarbonCoefficient)

	body, err := EncodeJSON(res)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "gas DAYS week, every option", body)
}

// Monthly gas: January holds the whole week (its price change applied day by day), February
// nothing; computationPeriod spans the data.
func TestGasConsumptionMonths(t *testing.T) {
	f := newConsumptionFixture(t)
	f.gasTariff(gasTariff())
	gasWeek(f)
	res := f.compute(Request{Fluid: FluidGas, Start: pd("2024-01-01"), End: pd("2024-03-01"), StepUnit: UnitMonths, StepValue: 1, WithCarbonFootprint: true})
	checkItems(t, res.Consumptions, []wantItem{
		// 86.32 EUR of energy + 31 days of subscription; 5 of 31 days covered by real data.
		{start: "2024-01-01T00:00", end: "2024-02-01T00:00", wh: ptr(773), byHeading: map[string]float64{"BASE": 773}, eur: ptr(117.32), standing: ptr(31),
			status: StatusPartial, nature: NatureReal, quality: ptr(16.13), flags: []string{FlagMissingData, FlagMeterChange, FlagMissingConversionFactor},
			natures: []string{"MKT_CYCLIC_DISTRIBUTOR"}, aggregated: isTrue()},
		{start: "2024-02-01T00:00", end: "2024-03-01T00:00", wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
	})
	checkGasExtras(t, res.Consumptions, []*float64{ptr(71), nil}, DefaultGasCarbonCoefficient)
	checkComputationPeriod(t, res, "2024-01-01T00:00", "2024-01-07T00:00")
}

// The spring DST day lasts 23 hours: a reading interval of 47 hours across it gives it 23/47 of
// its energy. The site's electricity tariff and indexes play no part in its gas answer: no gas
// tariff, no cost; the configured gas carbon coefficient applies.
func TestGasConsumptionDSTDayWithoutGasTariff(t *testing.T) {
	f := newConsumptionFixture(t)
	f.tariff(baseTariff())
	f.engine.WithGasCarbon(0.2)
	f.indexes(dailyIndexes("2024-03-30", "1", 1000, 5000, 9000, 13000)...)
	// 47 m3 × 10 kWh/m3 = 470 kWh over 47 hours: 10 kWh an hour.
	f.gasIndexes(gasRow{ts: pt("2024-03-30T12:00"), value: 100, factor: 10}, gasRow{ts: pt("2024-04-01T12:00"), value: 147, factor: 10})
	res := f.compute(Request{Fluid: FluidGas, Start: pd("2024-03-30"), End: pd("2024-04-02"), StepUnit: UnitDays, StepValue: 1,
		IndexStrategy: StrategyAllEstimated, WithCarbonFootprint: true})
	base := func(kwh float64) map[string]float64 { return map[string]float64{"BASE": kwh} }
	checkItems(t, res.Consumptions, []wantItem{
		{start: "2024-03-30T00:00", end: "2024-03-31T00:00", wh: ptr(120), byHeading: base(120), status: StatusPartial, nature: NatureEstimated, quality: ptr(0), flags: []string{FlagMissingData}},
		{start: "2024-03-31T00:00", end: "2024-04-01T00:00", wh: ptr(230), byHeading: base(230), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
		{start: "2024-04-01T00:00", end: "2024-04-02T00:00", wh: ptr(120), byHeading: base(120), status: StatusPartial, nature: NatureEstimated, quality: ptr(0), flags: []string{FlagMissingData}},
	})
	if d := res.Consumptions[1].Period.EndTime.Sub(res.Consumptions[1].Period.StartTime); d.Hours() != 23 {
		t.Errorf("31 March lasts %v", d)
	}
	checkGasExtras(t, res.Consumptions, []*float64{ptr(12), ptr(23), ptr(12)}, 0.2)
	checkComputationPeriod(t, res, "2024-03-30T12:00", "2024-04-01T12:00")

	// The electricity answer of the same site still reads its own indexes and tariff.
	elec := f.compute(Request{Start: pd("2024-03-30"), End: pd("2024-04-02"), StepUnit: UnitDays, StepValue: 1})
	if elec.Units.EnergyMeter != "Wh" || elec.Consumptions[1].EnergyMeter.Total == nil || *elec.Consumptions[1].EnergyMeter.Total != 4000 ||
		elec.Consumptions[1].Volume != nil || elec.Consumptions[1].Cost == nil {
		t.Errorf("electricity answer %+v", elec.Consumptions[1])
	}
}

// An index in kWh needs no conversion factor (1): its energy is the index difference, and the
// volume is stated in kWh too.
func TestGasConsumptionOfKWhIndexes(t *testing.T) {
	f := newConsumptionFixture(t)
	f.gasIndexes(gasRow{ts: pd("2024-02-01"), value: 5000, unit: "kWh"}, gasRow{ts: pd("2024-02-02"), value: 5150, unit: "kWh"})
	res := f.compute(Request{Fluid: FluidGas, Start: pd("2024-02-01"), End: pd("2024-02-02")})
	checkItems(t, res.Consumptions, []wantItem{{wh: ptr(150), byHeading: map[string]float64{"BASE": 150}, status: StatusComplete, quality: ptr(100)}})
	if v := res.Consumptions[0].Volume; v == nil || v.Unit != "kWh" || v.Total == nil || *v.Total != 150 {
		t.Errorf("volume %+v, want 150 kWh", v)
	}
}
