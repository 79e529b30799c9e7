package advices

import (
	"encoding/json"
	"reflect"
	"testing"
)

// compute parses one input object and applies the catalog.
func compute(t *testing.T, input string) Result {
	t.Helper()
	in, err := ParseInput("[0].input", json.RawMessage(input))
	if err != nil {
		t.Fatalf("ParseInput(%s): %v", input, err)
	}
	return Compute(in)
}

// TestWorkedExample is the catalog's example, to the cent.
func TestWorkedExample(t *testing.T) {
	r := compute(t, `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21,
		"HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false}`)
	want := map[string]Saving{
		CodeLowerSetpoint: {SavingsKwh: 1680, SavingsEur: 184.80, Rate: 0.14, Basis: 12000},
		CodeThermostat:    {SavingsKwh: 1200, SavingsEur: 132.00, Rate: 0.10, Basis: 12000},
	}
	if !reflect.DeepEqual(r.Advices, want) {
		t.Errorf("advices = %+v, want %+v", r.Advices, want)
	}
	if r.Context["totalSavingsKwh"] != 2712.0 || r.Context["totalSavingsEur"] != 298.32 {
		t.Errorf("totals = %v kWh, %v EUR, want 2712 kWh, 298.32 EUR", r.Context["totalSavingsKwh"], r.Context["totalSavingsEur"])
	}
	wantIgnored := map[string]string{
		CodeRoofInsulation:      "MISSING_INPUT:HOUSING_TYPE",
		CodeWindowGlazing:       "MISSING_INPUT:HOUSING_WINDOWS",
		CodeCondensingBoiler:    "MISSING_INPUT:HOUSING_HEATING_SYSTEM",
		CodeHeatPump:            "MISSING_INPUT:HOUSING_HEATING_SYSTEM",
		CodeHeatPumpWaterHeater: "MISSING_INPUT:HOUSING_OCCUPANTS",
	}
	if !reflect.DeepEqual(r.Ignored, wantIgnored) {
		t.Errorf("ignored = %v, want %v", r.Ignored, wantIgnored)
	}
	for k, want := range map[string]any{
		"heatingFluid": "GAS", "heatingKwh": 12000.0, "heatingPriceEurPerKwh": 0.11,
		"GAS_PRICE_EUR_PER_KWH": 0.11, "ELEC_PRICE_EUR_PER_KWH": 0.2516,
		"HOUSING_HEATING_SETPOINT": 21.0, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false,
		"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000.0,
	} {
		if got := r.Context[k]; got != want {
			t.Errorf("context[%s] = %v, want %v", k, got, want)
		}
	}
	for _, absent := range []string{"energyClass", "heatingKwhPerM2"} {
		if _, ok := r.Context[absent]; ok {
			t.Errorf("context[%s] present without HOUSING_SURFACE", absent)
		}
	}
}

// TestEveryAdviceApplies: a gas house that lacks everything the gas advices offer, then an
// electric home for HEAT_PUMP and the water heater; figures computed by hand.
func TestEveryAdviceApplies(t *testing.T) {
	r := compute(t, `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 10000, "HOUSING_HEATING_SETPOINT": 20.5,
		"HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false, "HOUSING_TYPE": "HOUSE", "HOUSING_ROOF_INSULATED": false,
		"HOUSING_WINDOWS": "SINGLE", "HOUSING_HEATING_SYSTEM": "GAS_BOILER", "GAS_PRICE_EUR_PER_KWH": 0.1}`)
	want := map[string]Saving{
		CodeLowerSetpoint:    {SavingsKwh: 1050, SavingsEur: 105, Rate: 0.105, Basis: 10000}, // 0.07 × 1.5
		CodeThermostat:       {SavingsKwh: 1000, SavingsEur: 100, Rate: 0.10, Basis: 10000},
		CodeRoofInsulation:   {SavingsKwh: 2500, SavingsEur: 250, Rate: 0.25, Basis: 10000},
		CodeWindowGlazing:    {SavingsKwh: 1000, SavingsEur: 100, Rate: 0.10, Basis: 10000},
		CodeCondensingBoiler: {SavingsKwh: 1500, SavingsEur: 150, Rate: 0.15, Basis: 10000},
	}
	if !reflect.DeepEqual(r.Advices, want) {
		t.Errorf("advices = %+v, want %+v", r.Advices, want)
	}
	// 10000 × (1 − 0.895 × 0.9 × 0.75 × 0.9 × 0.85) = 10000 × (1 − 0.462155625) = 5378.44 kWh, at 0.1 EUR
	if r.Context["totalSavingsKwh"] != 5378.44 || r.Context["totalSavingsEur"] != 537.84 {
		t.Errorf("totals = %v kWh, %v EUR, want 5378.44, 537.84", r.Context["totalSavingsKwh"], r.Context["totalSavingsEur"])
	}
	if r.Ignored[CodeHeatPump] != ReasonNotApplicable {
		t.Errorf("HEAT_PUMP on a gas boiler: %q, want NOT_APPLICABLE", r.Ignored[CodeHeatPump])
	}

	r = compute(t, `{"HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 9000, "HOUSING_HEATING_SYSTEM": "ELEC_CONVECTOR",
		"HOUSING_WATER_HEATER": "ELEC_TANK", "HOUSING_OCCUPANTS": 3, "ELEC_PRICE_EUR_PER_KWH": 0.2}`)
	want = map[string]Saving{
		CodeHeatPump:            {SavingsKwh: 6000, SavingsEur: 1200, Rate: 0.666667, Basis: 9000}, // 9000 × 2/3
		CodeHeatPumpWaterHeater: {SavingsKwh: 1440, SavingsEur: 288, Rate: 0.6, Basis: 2400},       // 800 × 3 × 0.6
	}
	if !reflect.DeepEqual(r.Advices, want) {
		t.Errorf("advices = %+v, want %+v", r.Advices, want)
	}
	if r.Context["totalSavingsKwh"] != 7440.0 || r.Context["totalSavingsEur"] != 1488.0 {
		t.Errorf("totals = %v kWh, %v EUR, want 7440, 1488 (the water heater added)", r.Context["totalSavingsKwh"], r.Context["totalSavingsEur"])
	}
	if r.Context["heatingFluid"] != "ELEC" || r.Context["heatingPriceEurPerKwh"] != 0.2 {
		t.Errorf("heating fluid %v at %v, want ELEC at 0.2", r.Context["heatingFluid"], r.Context["heatingPriceEurPerKwh"])
	}
	if r.Ignored[CodeCondensingBoiler] != ReasonNotApplicable {
		t.Errorf("CONDENSING_BOILER on convectors: %q, want NOT_APPLICABLE", r.Ignored[CodeCondensingBoiler])
	}
}

// TestIgnoredReasons: each advice NOT_APPLICABLE, MISSING_INPUT:<KEY> and NO_SAVING.
func TestIgnoredReasons(t *testing.T) {
	cases := []struct {
		name, input, code, reason string
	}{
		{"setpoint missing", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1}`, CodeLowerSetpoint, "MISSING_INPUT:HOUSING_HEATING_SETPOINT"},
		{"setpoint at 19", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_HEATING_SETPOINT": 19}`, CodeLowerSetpoint, ReasonNoSaving},
		{"setpoint below 19", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_HEATING_SETPOINT": 17}`, CodeLowerSetpoint, ReasonNoSaving},
		{"setpoint without consumption", `{"HOUSING_HEATING_SETPOINT": 22}`, CodeLowerSetpoint, "MISSING_INPUT:HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"},
		{"electric system without its consumption", `{"HOUSING_HEATING_SYSTEM": "HEAT_PUMP", "HOUSING_HEATING_SETPOINT": 22, "HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 5}`,
			CodeLowerSetpoint, "MISSING_INPUT:HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION"},
		{"thermostat present", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": true}`, CodeThermostat, ReasonNotApplicable},
		{"thermostat missing", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1}`, CodeThermostat, "MISSING_INPUT:HOUSING_HAS_PROGRAMMABLE_THERMOSTAT"},
		{"thermostat, zero heating", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 0, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false}`, CodeThermostat, ReasonNoSaving},
		{"roof of an apartment", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_TYPE": "APARTMENT"}`, CodeRoofInsulation, ReasonNotApplicable},
		{"roof insulated", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_TYPE": "HOUSE", "HOUSING_ROOF_INSULATED": true}`, CodeRoofInsulation, ReasonNotApplicable},
		{"roof unknown", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_TYPE": "HOUSE"}`, CodeRoofInsulation, "MISSING_INPUT:HOUSING_ROOF_INSULATED"},
		{"roof, zero heating", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 0, "HOUSING_TYPE": "HOUSE", "HOUSING_ROOF_INSULATED": false}`, CodeRoofInsulation, ReasonNoSaving},
		{"double glazing", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_WINDOWS": "DOUBLE"}`, CodeWindowGlazing, ReasonNotApplicable},
		{"glazing unknown", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1}`, CodeWindowGlazing, "MISSING_INPUT:HOUSING_WINDOWS"},
		{"glazing, zero heating", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 0, "HOUSING_WINDOWS": "SINGLE"}`, CodeWindowGlazing, ReasonNoSaving},
		{"condensing boiler already", `{"HOUSING_HEATING_SYSTEM": "GAS_CONDENSING_BOILER"}`, CodeCondensingBoiler, ReasonNotApplicable},
		{"boiler without consumption", `{"HOUSING_HEATING_SYSTEM": "GAS_BOILER"}`, CodeCondensingBoiler, "MISSING_INPUT:HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"},
		{"boiler system unknown", `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1}`, CodeCondensingBoiler, "MISSING_INPUT:HOUSING_HEATING_SYSTEM"},
		{"boiler, zero heating", `{"HOUSING_HEATING_SYSTEM": "GAS_BOILER", "HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 0}`, CodeCondensingBoiler, ReasonNoSaving},
		{"heat pump already", `{"HOUSING_HEATING_SYSTEM": "HEAT_PUMP"}`, CodeHeatPump, ReasonNotApplicable},
		{"heat pump, system unknown, nothing else", `{"HOUSING_TYPE": "HOUSE"}`, CodeHeatPump, "MISSING_INPUT:HOUSING_HEATING_SYSTEM"},
		{"heat pump, system unknown, electric heating", `{"HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 100}`, CodeHeatPump, "MISSING_INPUT:HOUSING_HEATING_SYSTEM"},
		{"convectors without consumption", `{"HOUSING_HEATING_SYSTEM": "ELEC_CONVECTOR", "HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1}`,
			CodeHeatPump, "MISSING_INPUT:HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION"},
		{"convectors, zero heating", `{"HOUSING_HEATING_SYSTEM": "ELEC_CONVECTOR", "HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 0}`, CodeHeatPump, ReasonNoSaving},
		{"gas water heater", `{"HOUSING_WATER_HEATER": "GAS"}`, CodeHeatPumpWaterHeater, ReasonNotApplicable},
		{"heat pump water heater already", `{"HOUSING_WATER_HEATER": "HEAT_PUMP", "HOUSING_OCCUPANTS": 2}`, CodeHeatPumpWaterHeater, ReasonNotApplicable},
		{"water heater, occupants unknown", `{"HOUSING_WATER_HEATER": "ELEC_TANK"}`, CodeHeatPumpWaterHeater, "MISSING_INPUT:HOUSING_OCCUPANTS"},
		{"water heater unknown", `{"HOUSING_OCCUPANTS": 2}`, CodeHeatPumpWaterHeater, "MISSING_INPUT:HOUSING_WATER_HEATER"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := compute(t, c.input)
			if got := r.Ignored[c.code]; got != c.reason {
				t.Errorf("%s ignored as %q, want %q (advices %v)", c.code, got, c.reason, r.Advices)
			}
			if _, given := r.Advices[c.code]; given {
				t.Errorf("%s both given and ignored", c.code)
			}
		})
	}
}

// TestHeatingFluid: the system decides, else the consumption given, gas when both.
func TestHeatingFluid(t *testing.T) {
	for input, want := range map[string]any{
		`{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 2}`:                                        "GAS",
		`{"HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 2}`:                                                                                        "ELEC",
		`{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1, "HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 2, "HOUSING_HEATING_SYSTEM": "HEAT_PUMP"}`: "ELEC",
		`{"HOUSING_HEATING_SYSTEM": "GAS_CONDENSING_BOILER"}`:                                                                                      "GAS",
		`{"HOUSING_TYPE": "HOUSE"}`: nil,
	} {
		r := compute(t, input)
		if got := r.Context["heatingFluid"]; got != want {
			t.Errorf("%s: heatingFluid %v, want %v", input, got, want)
		}
	}
	r := compute(t, `{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 1000, "HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 2000, "HOUSING_HEATING_SYSTEM": "HEAT_PUMP"}`)
	if r.Context["heatingKwh"] != 2000.0 || r.Context["heatingPriceEurPerKwh"] != 0.2516 {
		t.Errorf("heat pump home: heatingKwh %v at %v, want 2000 at 0.2516", r.Context["heatingKwh"], r.Context["heatingPriceEurPerKwh"])
	}
}

// TestEnergyClassThresholds: each bound belongs to the better class.
func TestEnergyClassThresholds(t *testing.T) {
	for _, c := range []struct {
		perM2 float64
		want  string
	}{{0, "A"}, {70, "A"}, {70.01, "B"}, {110, "B"}, {110.01, "C"}, {180, "C"}, {180.01, "D"},
		{250, "D"}, {250.01, "E"}, {330, "E"}, {330.01, "F"}, {420, "F"}, {420.01, "G"}, {5000, "G"}} {
		if got := EnergyClass(c.perM2); got != c.want {
			t.Errorf("EnergyClass(%v) = %s, want %s", c.perM2, got, c.want)
		}
	}
}

// TestEnergyClassInContext: primary energy = gas heating + 2.3 × electricity (all uses when
// given, else electric heating), per m².
func TestEnergyClassInContext(t *testing.T) {
	cases := []struct {
		input     string
		perM2     float64
		class     string
		heatPerM2 any
	}{
		// 7000 / 100 = 70: the A bound.
		{`{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 7000, "HOUSING_SURFACE": 100}`, 70, "A", 70.0},
		// (11000 + 2.3 × 3000) / 100 = 179
		{`{"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 11000, "HOUSING_LAST_YEAR_ELEC_CONSUMPTION": 3000, "HOUSING_SURFACE": 100}`, 179, "C", 110.0},
		// all-uses electricity wins over electric heating: 2.3 × 10000 / 50 = 460
		{`{"HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 6000, "HOUSING_LAST_YEAR_ELEC_CONSUMPTION": 10000, "HOUSING_SURFACE": 50}`, 460, "G", 120.0},
		// electric heating alone: 2.3 × 6000 / 60 = 230
		{`{"HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION": 6000, "HOUSING_SURFACE": 60}`, 230, "D", 100.0},
		// electricity only, no heating consumption: no heatingKwhPerM2
		{`{"HOUSING_LAST_YEAR_ELEC_CONSUMPTION": 4000, "HOUSING_SURFACE": 92}`, 100, "B", nil},
	}
	for _, c := range cases {
		r := compute(t, c.input)
		if r.Context["primaryEnergyKwhPerM2"] != c.perM2 || r.Context["energyClass"] != c.class || r.Context["heatingKwhPerM2"] != c.heatPerM2 {
			t.Errorf("%s: primary %v/m² class %v heating %v/m², want %v, %s, %v", c.input,
				r.Context["primaryEnergyKwhPerM2"], r.Context["energyClass"], r.Context["heatingKwhPerM2"], c.perM2, c.class, c.heatPerM2)
		}
	}
}

// TestUnknownInputsSorted: unknown keys are listed, sorted, and are not errors.
func TestUnknownInputsSorted(t *testing.T) {
	r := compute(t, `{"ZETA": 1, "HOUSING_TYPE": "HOUSE", "alpha": "x", "HOUSING_POOL": true, "BETA": null}`)
	want := []string{"BETA", "HOUSING_POOL", "ZETA", "alpha"}
	if got := r.Context["unknownInputs"]; !reflect.DeepEqual(got, want) {
		t.Errorf("unknownInputs = %v, want %v", got, want)
	}
	if _, ok := r.Context["ZETA"]; ok {
		t.Error("an unknown key is in context as an input used")
	}
	r = compute(t, `{"HOUSING_TYPE": "HOUSE"}`)
	b, _ := json.Marshal(r.Context["unknownInputs"])
	if string(b) != "[]" {
		t.Errorf("unknownInputs without unknown keys = %s, want []", b)
	}
}
