package advices

import "math"

// Advice codes.
const (
	CodeLowerSetpoint        = "LOWER_HEATING_SETPOINT"
	CodeThermostat           = "PROGRAMMABLE_THERMOSTAT"
	CodeRoofInsulation       = "ROOF_INSULATION"
	CodeWindowGlazing        = "WINDOW_GLAZING"
	CodeCondensingBoiler     = "CONDENSING_BOILER"
	CodeHeatPump             = "HEAT_PUMP"
	CodeHeatPumpWaterHeater  = "HEAT_PUMP_WATER_HEATER"
	ReasonNotApplicable      = "NOT_APPLICABLE"
	ReasonNoSaving           = "NO_SAVING"
	reasonMissingInputPrefix = "MISSING_INPUT:"
)

// The figures of the catalog, each from public ADEME (French energy agency) guidance.
const (
	// Each °C of heating setpoint above 19 °C costs about 7 % more heating energy (ADEME,
	// "Se chauffer mieux et moins cher"): 19 °C is the recommended living-room temperature.
	setpointRatePerDegree = 0.07
	setpointReference     = 19.0
	// A programmable thermostat saves about 10 % of heating (ADEME, "Se chauffer mieux").
	thermostatRate = 0.10
	// Up to 30 % of a house's heat escapes through an uninsulated roof; insulating it saves
	// about 25 % of heating (ADEME, "Isoler sa maison").
	roofRate = 0.25
	// Single glazing loses 10-15 % of the heat; double glazing saves about 10 % (ADEME,
	// "Isoler sa maison").
	glazingRate = 0.10
	// A condensing boiler uses about 15 % less gas than a standard one (ADEME, "Se chauffer
	// mieux et moins cher").
	condensingRate = 0.15
	// An air-to-water heat pump of seasonal COP 3 uses a third of the electricity of
	// convectors for the same heat (ADEME, "Les pompes à chaleur").
	heatPumpSeasonalCOP = 3.0
	// A household uses about 800 kWh of hot water energy per person and year; a thermodynamic
	// (heat pump) water heater of COP 2.5 uses 1/2.5 of an electric tank's (ADEME, "Eau chaude
	// sanitaire" and "Le chauffe-eau thermodynamique").
	hotWaterKwhPerOccupant = 800.0
	waterHeatPumpCOP       = 2.5
)

// advice is one entry of the catalog.
type advice struct {
	code string
	// heating: the basis is the heating consumption and the advice joins the combined heating
	// saving; otherwise it is the hot water of HEAT_PUMP_WATER_HEATER, saved in electricity.
	heating bool
	// systemFirst: the heating system decides whether the advice applies and which consumption
	// it saves, so without it the advice reports MISSING_INPUT:HOUSING_HEATING_SYSTEM first.
	systemFirst bool
	// reads: the keys the condition reads, besides the consumption basis.
	reads []Key
	// excluded reports whether the keys given already rule the advice out (NOT_APPLICABLE).
	excluded func(Input) bool
	// rate is the share of the basis saved, once every key it needs is known.
	rate func(Input) float64
}

// catalogAdvices is the catalog, in the order the advices are evaluated.
var catalogAdvices = []advice{
	{code: CodeLowerSetpoint, heating: true, reads: []Key{KeySetpoint},
		excluded: func(Input) bool { return false },
		rate: func(in Input) float64 {
			sp, _ := in.Number(KeySetpoint)
			return setpointRatePerDegree * (sp - setpointReference)
		}},
	{code: CodeThermostat, heating: true, reads: []Key{KeyThermostat},
		excluded: func(in Input) bool { return is(in.Bool(KeyThermostat)) },
		rate:     constant(thermostatRate)},
	{code: CodeRoofInsulation, heating: true, reads: []Key{KeyHousingType, KeyRoofInsulated},
		excluded: func(in Input) bool {
			return textIsNot(in, KeyHousingType, housingHouse) || is(in.Bool(KeyRoofInsulated))
		},
		rate: constant(roofRate)},
	{code: CodeWindowGlazing, heating: true, reads: []Key{KeyWindows},
		excluded: func(in Input) bool { return textIsNot(in, KeyWindows, windowsSingle) },
		rate:     constant(glazingRate)},
	{code: CodeCondensingBoiler, heating: true, systemFirst: true, reads: []Key{KeyHeatingSystem},
		excluded: func(in Input) bool { return textIsNot(in, KeyHeatingSystem, systemGasBoiler) },
		rate:     constant(condensingRate)},
	{code: CodeHeatPump, heating: true, systemFirst: true, reads: []Key{KeyHeatingSystem},
		excluded: func(in Input) bool { return textIsNot(in, KeyHeatingSystem, systemElecConvector) },
		rate:     constant(1 - 1/heatPumpSeasonalCOP)},
	{code: CodeHeatPumpWaterHeater, reads: []Key{KeyWaterHeater},
		excluded: func(in Input) bool { return textIsNot(in, KeyWaterHeater, waterHeaterElecTank) },
		rate:     constant(1 - 1/waterHeatPumpCOP)},
}

func constant(r float64) func(Input) float64 { return func(Input) float64 { return r } }

// is is true for a boolean given as true.
func is(v, given bool) bool { return given && v }

// textIsNot is true when k is given with another value than want.
func textIsNot(in Input, k Key, want string) bool {
	v, ok := in.Text(k)
	return ok && v != want
}

// Saving is one advice given: rate × basis kWh saved, at the price of the fluid saved.
type Saving struct {
	SavingsKwh float64 `json:"savingsKwh" doc:"kWh saved per year: basis × rate, rounded to 0.01" example:"1680"`
	SavingsEur float64 `json:"savingsEur" doc:"EUR saved per year: savingsKwh × the price of the fluid saved, rounded to 0.01" example:"184.8"`
	Rate       float64 `json:"rate" doc:"share of the basis saved" example:"0.14"`
	Basis      float64 `json:"basis" doc:"kWh per year the rate applies to" example:"12000"`
}

// outcome is an advice evaluated on one input: given (saving) or ignored (reason).
type outcome struct {
	code    string
	reason  string // empty when the advice is given
	kwh     float64
	eur     float64
	rate    float64
	basis   float64
	heating bool
}

// evaluate decides one advice: NOT_APPLICABLE when the keys given rule it out, else
// MISSING_INPUT:<KEY> for the first key it needs that is missing (catalog order), else
// NO_SAVING when the rate or the basis is 0 or less, else the saving.
func (a advice) evaluate(in Input, d derived) outcome {
	o := outcome{code: a.code, heating: a.heating}
	if a.excluded(in) {
		o.reason = ReasonNotApplicable
		return o
	}
	if a.systemFirst && !in.Has(KeyHeatingSystem) {
		o.reason = reasonMissingInputPrefix + string(KeyHeatingSystem)
		return o
	}
	basisKey := KeyOccupants
	if a.heating {
		basisKey = heatingKey(d.fluid)
	}
	needs := append([]Key{basisKey}, a.reads...)
	missing, missingRank := Key(""), len(catalog)
	for _, k := range needs {
		if !in.Has(k) && rank(k) < missingRank {
			missing, missingRank = k, rank(k)
		}
	}
	if missing != "" {
		o.reason = reasonMissingInputPrefix + string(missing)
		return o
	}
	price := d.elecPrice
	if a.heating {
		o.basis, price = d.heatingKwh, d.heatingPrice
	} else {
		occupants, _ := in.Number(KeyOccupants)
		o.basis = hotWaterKwhPerOccupant * occupants
	}
	o.rate = a.rate(in)
	if o.rate <= 0 || o.basis <= 0 {
		o.reason = ReasonNoSaving
		return o
	}
	o.kwh = o.basis * o.rate
	o.eur = o.kwh * price
	return o
}

// combinedHeatingRate is the share of heating saved by several advices together: each rate
// applies to what the others leave, 1 − Π(1 − rateᵢ).
func combinedHeatingRate(outcomes []outcome) float64 {
	left := 1.0
	for _, o := range outcomes {
		if o.heating && o.reason == "" {
			left *= 1 - o.rate
		}
	}
	return 1 - left
}

// roundRate keeps a rate readable (2/3 as 0.666667) without moving the savings, computed
// from the exact rate.
func roundRate(r float64) float64 { return math.Round(r*1e6) / 1e6 }
