package consumption

import "time"

// Request is a validated request for the consumption of one fluid of one site
// (GET .../fluids/elec/consumptions, GET .../fluids/gas/consumptions). The HTTP layer parses and
// checks it; the engine trusts it.
type Request struct {
	Fluid                                                                             string    // FluidElec (also when empty) or FluidGas; gas has no load curve (DataSources and LoadCurveCompletion do not apply)
	Start, End                                                                        time.Time // absolute instants; End excluded
	StepUnit                                                                          string    // "" (one step: the whole period), YEARS, MONTHS, DAYS, HOURS, MINUTES
	StepValue                                                                         int       // ≥1
	IndexCategories                                                                   []string  // allowed categories; empty = all
	IndexStrategy                                                                     string    // NO_ESTIMATED | ALL_ESTIMATED | SURROUNDING_ESTIMATED
	DataSources                                                                       []string  // allowed sources; empty = all
	LoadCurveCompletion                                                               bool
	WithoutCost, WithCarbonFootprint, WithGlobalConsumption, WithRatioByTariffHeading bool
}

// Index strategies.
const (
	StrategyNoEstimated          = "NO_ESTIMATED"
	StrategyAllEstimated         = "ALL_ESTIMATED"
	StrategySurroundingEstimated = "SURROUNDING_ESTIMATED" // the default
)

// Index categories (readings' natures map to them, see resolve.go; the others match no stored nature).
var IndexCategories = []string{"RTM", "SUPPLIER", "SMART_METER", "LEGACY_METER", "SENSOR", "STEREO", "SELF_METER_READING", "ESTIMATED"}

// Data sources.
const SourceLoadCurve = "LOAD_CURVE"

// DataSources are the allowed values of dataSources.
var DataSources = []string{"INTRADAY", "SMART_METER", "LEGACY_INDEX", SourceLoadCurve, "SENSOR"}

// Status of a consumption item.
const (
	StatusComplete = "COMPLETE"
	StatusPartial  = "PARTIAL"
	StatusNoData   = "NO_DATA"
)

// Nature of a consumption item.
const (
	NatureReal      = "REAL"
	NatureEstimated = "ESTIMATED"
)

// Error flags of a consumption item.
const (
	FlagNegativeConsumption = "NEGATIVE_CONSUMPTION"
	FlagMissingData         = "MISSING_DATA"
	FlagMeterChange         = "METER_CHANGE"
	FlagUnreliableLoadCurve = "UNRELIABLE_LOAD_CURVE"
	// FlagMissingConversionFactor: part of the step lies in a gas reading interval whose later
	// reading has no kWh conversion factor (and is not in kWh): its energy is unknown.
	FlagMissingConversionFactor = "MISSING_CONVERSION_FACTOR"
	// FlagMissingDayColour: part of the step's load-curve energy lies in a colour day that the
	// TEMPO tariff's calendar lacks: it counts in the total, under no heading, and the step has
	// no cost.
	FlagMissingDayColour = "MISSING_DAY_COLOUR"
)

// Units of the response.
const (
	UnitEnergy    = "Wh"  // electricity
	UnitEnergyKWh = "kWh" // gas
	UnitCost      = "EUR"
	UnitCarbon    = "kgCO2e"
)

// ConsumptionResult is the consumption response of a fluid.
type ConsumptionResult struct {
	Period            Period        `json:"period" doc:"Requested period (timestamps with the site's offset)."`
	ComputationPeriod *Period       `json:"computationPeriod,omitempty" doc:"Period actually computed, only when it differs from the requested one (1,200-item window, or leading/trailing steps without data)."`
	Step              string        `json:"step" doc:"ISO 8601 duration of the step." example:"P1D"`
	Units             Units         `json:"units"`
	Consumptions      []Consumption `json:"consumptions"`
	GlobalConsumption *Consumption  `json:"globalConsumption,omitempty" doc:"The whole requested period as one item (option withGlobalConsumption)."`
}

// Period is a half-open interval [StartTime, EndTime); times carry the site's UTC offset.
type Period struct {
	StartTime time.Time `json:"startTime" csv:"startTime"`
	EndTime   time.Time `json:"endTime" csv:"endTime"`
}

// Units names the unit of each measured member.
type Units struct {
	Cost            string `json:"cost" example:"EUR"`
	EnergyMeter     string `json:"energyMeter" example:"Wh" doc:"Wh for electricity, kWh for gas."`
	CarbonFootprint string `json:"carbonFootprint" example:"kgCO2e"`
}

// Consumption is one step (or the global period).
type Consumption struct {
	Period          Period           `json:"period"`
	EnergyMeter     EnergyMeter      `json:"energyMeter"`
	Volume          *Volume          `json:"volume,omitempty" doc:"Gas only: the volume behind the energy, in the index unit."`
	Cost            *Cost            `json:"cost,omitempty" doc:"Absent when the site has no tariff, with option withoutCost, or when the step has no data."`
	CarbonFootprint *CarbonFootprint `json:"carbonFootprint,omitempty" doc:"Present with option withCarbonFootprint."`
	Quality         float64          `json:"quality" doc:"Percentage (0-100) of the step's duration covered by real data (not estimated, reliability 0)."`
	ErrorFlags      []string         `json:"errorFlags" doc:"NEGATIVE_CONSUMPTION, MISSING_DATA, METER_CHANGE, UNRELIABLE_LOAD_CURVE, MISSING_DAY_COLOUR (TEMPO: load-curve energy in a colour day the calendar lacks; no cost); gas: MISSING_CONVERSION_FACTOR."`
	IndexNatures    []string         `json:"indexNatures" doc:"Natures of the readings used."`
	Status          string           `json:"status" enum:"COMPLETE,PARTIAL,NO_DATA"`
	Nature          string           `json:"nature" enum:"REAL,ESTIMATED"`
	Aggregated      bool             `json:"aggregated" doc:"The step sums more than one reading interval."`
	UsingLoadCurve  bool             `json:"usingLoadCurve"`
	Ratios          *Ratios          `json:"ratios,omitempty" doc:"Present with option withRatioByTariffHeading."`
}

// EnergyMeter is the energy of an item in Wh (electricity) or kWh (gas).
type EnergyMeter struct {
	Total           *float64           `json:"total" csv:"energy" doc:"Wh (electricity) or kWh (gas); null when the step has no usable data."`
	ByTariffHeading map[string]float64 `json:"byTariffHeading" csv:"energy"`
}

// Volume is the gas volume of an item: the index differences behind its energy.
type Volume struct {
	Total *float64 `json:"total" csv:"volume" doc:"Index units (for example m3); null when the step has no usable data."`
	Unit  string   `json:"unit" example:"m3" doc:"The index unit of the site's latest gas reading in the answer; intervals read in another unit are not counted in total."`
}

// Cost is the cost of an item in EUR: energy by heading plus the standing charge.
type Cost struct {
	Total                      float64            `json:"total" csv:"cost"`
	StandingCharge             float64            `json:"standingCharge" csv:"standingCharge"`
	StandingChargeByComponents map[string]float64 `json:"standingChargeByComponents" csv:"standingCharge"`
	ByTariffHeading            map[string]float64 `json:"byTariffHeading" csv:"cost"`
}

// CarbonFootprint is the item's footprint: Total = kWh × Coefficient.
type CarbonFootprint struct {
	Coefficient float64  `json:"coefficient" doc:"kgCO2e/kWh"`
	Total       *float64 `json:"total" csv:"carbonFootprint" doc:"kgCO2e; null when the step has no usable data."`
}

// Ratios are the shares of the item's energy by heading and by heading group (each sums to 1
// when the energy is not 0; empty maps otherwise).
type Ratios struct {
	ByTariffHeading      map[string]float64 `json:"byTariffHeading" csv:"ratio"`
	ByTariffHeadingGroup map[string]float64 `json:"byTariffHeadingGroup" csv:"ratioGroup"`
}
