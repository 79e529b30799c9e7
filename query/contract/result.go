package contract

import "energy/query/consumption"

// Simulations is the answer of a tariff simulation.
type Simulations struct {
	Period       consumption.Period `json:"period" doc:"Requested period (timestamps with the site's offset)."`
	EnergySource string             `json:"energySource" enum:"INDEXES,LOAD_CURVE" doc:"Where every candidate's energy comes from: INDEXES when the site's indexes give the period's energy and price every candidate exactly, else LOAD_CURVE."`
	Quality      float64            `json:"quality" doc:"Percentage (0-100) of the period covered by real data of the energy source." example:"100"`
	Reference    *string            `json:"reference" doc:"The site's own tariff, always simulated; null when the site has none." example:"HPHC-9"`
	MaxPower     *PowerPeak         `json:"maxPower" doc:"The period's highest daily max power; null without max-power readings."`
	Simulations  []TariffSimulation `json:"simulations" doc:"Ascending cost.total, ties in request order; NOT_COMPUTABLE items last."`
}

// PowerPeak is the highest daily max power of a period and the first date that reached it.
type PowerPeak struct {
	_     struct{} `nullable:"true"` // the member may be null (no readings)
	Value int64    `json:"value" doc:"W" example:"7420"`
	Date  string   `json:"date" doc:"Local date yyyy-MM-dd" example:"2025-01-12"`
}

// TariffSimulation is one tariff priced on the site's energy.
type TariffSimulation struct {
	TariffID              string          `json:"tariffId" example:"BASE-9"`
	Option                string          `json:"option" example:"BASE"`
	SubscribedPowerKva    *int            `json:"subscribedPowerKva" example:"9"`
	Status                string          `json:"status" enum:"OK,INSUFFICIENT_POWER,NOT_COMPUTABLE" doc:"INSUFFICIENT_POWER: overrunDays > 0; NOT_COMPUTABLE: see reason (no cost)."`
	Reason                string          `json:"reason,omitempty" doc:"Why the tariff cannot be priced, naming the first date concerned (NOT_COMPUTABLE only)."`
	EnergyMeter           SimulatedEnergy `json:"energyMeter"`
	Cost                  *SimulatedCost  `json:"cost,omitempty" doc:"EUR, rounded to 0.01; absent when NOT_COMPUTABLE."`
	OverrunDays           *int            `json:"overrunDays" doc:"Dates whose max power exceeds subscribedPowerKva × 1,000 W; null without subscribed power or without max-power readings."`
	DifferenceVsReference *CostDifference `json:"differenceVsReference" doc:"Against the site's own tariff; null without reference, when the reference or this item is not computable."`
	Cheapest              bool            `json:"cheapest" doc:"True on the OK item of lowest cost.total (on none when no item is OK)."`
}

// SimulatedEnergy is the period's energy under a tariff's headings, in Wh.
type SimulatedEnergy struct {
	Total           float64            `json:"total" doc:"Wh, including energy in colour days the calendar lacks (under no heading)."`
	ByTariffHeading map[string]float64 `json:"byTariffHeading"`
}

// SimulatedCost is the period's cost under a tariff, EUR.
type SimulatedCost struct {
	Total           float64            `json:"total" doc:"energy + standingCharge"`
	Energy          float64            `json:"energy"`
	StandingCharge  float64            `json:"standingCharge" doc:"Yearly standing charge prorated by day."`
	ByTariffHeading map[string]float64 `json:"byTariffHeading"`
}

// CostDifference is a cost against the reference's.
type CostDifference struct {
	_    struct{} `nullable:"true"` // the member may be null (no reference to compare with)
	Cost float64  `json:"cost" doc:"This cost.total − the reference's, EUR." example:"-42.1"`
	Rate *float64 `json:"rate" doc:"cost over the reference's cost.total, percent (2 decimals); null when the reference costs 0." example:"-3.21"`
}
