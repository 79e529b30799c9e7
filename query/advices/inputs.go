// Package advices is the recommendation catalog: it reads housing inputs, derives the heating
// consumption and the energy class, and computes what each advice saves, in kWh and euros.
// Its jobs (store, worker pool, recovery) live beside it.
package advices

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Key is an input key of a recommendation element.
type Key string

// The input keys, in the catalog's order: MISSING_INPUT names the first missing key in this order.
const (
	KeyGasHeatingKwh  Key = "HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION"
	KeyElecHeatingKwh Key = "HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION"
	KeyElecKwh        Key = "HOUSING_LAST_YEAR_ELEC_CONSUMPTION"
	KeyHousingType    Key = "HOUSING_TYPE"
	KeySurface        Key = "HOUSING_SURFACE"
	KeyOccupants      Key = "HOUSING_OCCUPANTS"
	KeySetpoint       Key = "HOUSING_HEATING_SETPOINT"
	KeyHeatingSystem  Key = "HOUSING_HEATING_SYSTEM"
	KeyThermostat     Key = "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT"
	KeyRoofInsulated  Key = "HOUSING_ROOF_INSULATED"
	KeyWindows        Key = "HOUSING_WINDOWS"
	KeyWaterHeater    Key = "HOUSING_WATER_HEATER"
	KeyGasPrice       Key = "GAS_PRICE_EUR_PER_KWH"
	KeyElecPrice      Key = "ELEC_PRICE_EUR_PER_KWH"
	KeySiteID         Key = "SITE_ID"
)

// Ranges, defaults and values of the inputs.
const (
	keyCount            = 15
	maxSurfaceM2        = 10000
	maxOccupants        = 20
	minSetpointCelsius  = 10
	maxSetpointCelsius  = 30
	defaultGasPriceEur  = 0.1100 // EUR/kWh, French regulated-benchmark gas price (CRE), rounded
	defaultElecPriceEur = 0.2516 // EUR/kWh, French regulated electricity tariff (tarif bleu base, 2024)
	housingHouse        = "HOUSE"
	housingApartment    = "APARTMENT"
	systemGasBoiler     = "GAS_BOILER"
	systemCondensing    = "GAS_CONDENSING_BOILER"
	systemElecConvector = "ELEC_CONVECTOR"
	systemHeatPump      = "HEAT_PUMP"
	windowsSingle       = "SINGLE"
	waterHeaterElecTank = "ELEC_TANK"
	waterHeaterGas      = "GAS"
	waterHeaterHeatPump = "HEAT_PUMP"
	windowsDouble       = "DOUBLE"
	windowsTriple       = "TRIPLE"
)

// keyRule checks the JSON value of one key and returns it as float64, string or bool.
type keyRule struct {
	key   Key
	rule  string // what a valid value is, for error messages
	parse func(raw json.RawMessage) (any, bool)
}

// catalog lists every known key with its rule, in the catalog's order.
var catalog = [keyCount]keyRule{
	{KeyGasHeatingKwh, "must be a number >= 0", number(0, math.Inf(1), false)},
	{KeyElecHeatingKwh, "must be a number >= 0", number(0, math.Inf(1), false)},
	{KeyElecKwh, "must be a number >= 0", number(0, math.Inf(1), false)},
	{KeyHousingType, "must be one of HOUSE, APARTMENT", enum(housingHouse, housingApartment)},
	{KeySurface, "must be a number > 0 and <= 10000 (m²)", number(0, maxSurfaceM2, true)},
	{KeyOccupants, "must be an integer from 1 to 20", integer(1, maxOccupants)},
	{KeySetpoint, "must be a number from 10 to 30 (°C)", number(minSetpointCelsius, maxSetpointCelsius, false)},
	{KeyHeatingSystem, "must be one of GAS_BOILER, GAS_CONDENSING_BOILER, ELEC_CONVECTOR, HEAT_PUMP",
		enum(systemGasBoiler, systemCondensing, systemElecConvector, systemHeatPump)},
	{KeyThermostat, "must be true or false", boolean},
	{KeyRoofInsulated, "must be true or false", boolean},
	{KeyWindows, "must be one of SINGLE, DOUBLE, TRIPLE", enum(windowsSingle, windowsDouble, windowsTriple)},
	{KeyWaterHeater, "must be one of GAS, ELEC_TANK, HEAT_PUMP", enum(waterHeaterGas, waterHeaterElecTank, waterHeaterHeatPump)},
	{KeyGasPrice, "must be a number > 0 (EUR/kWh)", number(0, math.Inf(1), true)},
	{KeyElecPrice, "must be a number > 0 (EUR/kWh)", number(0, math.Inf(1), true)},
	{KeySiteID, "must be a non-empty string (a site id of your tenant)", nonEmptyString},
}

// rank is the position of a key in the catalog's order.
func rank(k Key) int {
	for i, r := range catalog {
		if r.key == k {
			return i
		}
	}
	return len(catalog)
}

// Input is one element's housing inputs once validated.
type Input struct {
	values  map[Key]any // float64, string or bool, as the key's rule reads it
	unknown []string    // keys the catalog does not know, sorted
}

// Has reports whether the key was given (or filled from site data).
func (in Input) Has(k Key) bool { _, ok := in.values[k]; return ok }

// Number returns a numeric key's value.
func (in Input) Number(k Key) (float64, bool) { v, ok := in.values[k].(float64); return v, ok }

// Text returns a string key's value.
func (in Input) Text(k Key) (string, bool) { v, ok := in.values[k].(string); return v, ok }

// Bool returns a boolean key's value.
func (in Input) Bool(k Key) (bool, bool) { v, ok := in.values[k].(bool); return v, ok }

// Unknown returns the keys the catalog does not know, sorted.
func (in Input) Unknown() []string { return in.unknown }

// WithNumber returns a copy of in with k set: site data filling a missing consumption.
func (in Input) WithNumber(k Key, v float64) Input {
	values := make(map[Key]any, len(in.values)+1)
	for key, val := range in.values {
		values[key] = val
	}
	values[k] = v
	return Input{values: values, unknown: in.unknown}
}

// ParseInput validates one element's input object; path names it in errors ("[3].input").
func ParseInput(path string, raw json.RawMessage) (Input, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return Input{}, &InputError{Path: path, Reason: "must be an object of housing inputs ({\"KEY\": value, ...})"}
	}
	in := Input{values: make(map[Key]any, len(members)), unknown: []string{}}
	for _, r := range catalog {
		v, ok := members[string(r.key)]
		if !ok {
			continue
		}
		val, valid := r.parse(v)
		if !valid {
			return Input{}, &InputError{Path: path + "." + string(r.key), Reason: fmt.Sprintf("%s (got %s)", r.rule, shorten(v))}
		}
		in.values[r.key] = val
	}
	for name := range members {
		if rank(Key(name)) == len(catalog) {
			in.unknown = append(in.unknown, name)
		}
	}
	slices.Sort(in.unknown)
	if len(in.values) == 0 {
		return Input{}, &InputError{Path: path, Reason: "holds no known input key (for example HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION)"}
	}
	return in, nil
}

// InputError is a request value that is malformed or out of range, with its path.
type InputError struct {
	Path   string // "[0].input.HOUSING_SURFACE", or "request body"
	Reason string
}

func (e *InputError) Error() string { return e.Path + ": " + e.Reason }

// number accepts a JSON number in [lo, hi], or (lo, hi] when lowExclusive.
func number(lo, hi float64, lowExclusive bool) func(json.RawMessage) (any, bool) {
	return func(raw json.RawMessage) (any, bool) {
		f, ok := jsonNumber(raw)
		if !ok || f > hi || f < lo || (lowExclusive && f == lo) {
			return nil, false
		}
		return f, true
	}
}

// integer accepts a whole JSON number in [lo, hi] (3, 3.0 and 3e0 alike, not 3.5).
func integer(lo, hi float64) func(json.RawMessage) (any, bool) {
	return func(raw json.RawMessage) (any, bool) {
		f, ok := jsonNumber(raw)
		if !ok || f != math.Trunc(f) || f < lo || f > hi {
			return nil, false
		}
		return f, true
	}
}

// jsonNumber reads a JSON number token (not a string holding one) as a finite float64.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func enum(allowed ...string) func(json.RawMessage) (any, bool) {
	return func(raw json.RawMessage) (any, bool) {
		var s string
		if json.Unmarshal(raw, &s) != nil || !slices.Contains(allowed, s) {
			return nil, false
		}
		return s, true
	}
}

func boolean(raw json.RawMessage) (any, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return nil, false
}

func nonEmptyString(raw json.RawMessage) (any, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return nil, false
	}
	return s, true
}

// shorten quotes a rejected value for an error message, cut to a readable length.
func shorten(raw json.RawMessage) string {
	const limit = 40
	s := string(bytes.TrimSpace(raw))
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}
