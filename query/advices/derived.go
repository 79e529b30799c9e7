package advices

import "math"

// Fluid is the energy a home heats with.
type Fluid string

const (
	FluidGas  Fluid = "GAS"
	FluidElec Fluid = "ELEC"
)

// elecPrimaryFactor converts final electricity kWh to primary energy: 2.3, the factor of the
// French energy performance diagnosis (DPE, decree of 31 March 2021); gas counts 1.
const elecPrimaryFactor = 2.3

// energyClassLimits are the upper bounds, in primary kWh per m² and year, of classes A..F of
// the DPE scale (decree of 31 March 2021, energy part); above the last one the class is G.
var energyClassLimits = [...]struct {
	class string
	upTo  float64
}{{"A", 70}, {"B", 110}, {"C", 180}, {"D", 250}, {"E", 330}, {"F", 420}}

// EnergyClass is the letter A..G of a primary energy per m² and year (a bound belongs to the
// better class: 70 is A, 70.01 is B).
func EnergyClass(primaryKwhPerM2 float64) string {
	for _, l := range energyClassLimits {
		if primaryKwhPerM2 <= l.upTo {
			return l.class
		}
	}
	return "G"
}

// derived holds the values computed from the inputs before the advices.
type derived struct {
	fluid          Fluid   // empty when neither the system nor a heating consumption tells
	heatingKwh     float64 // heating consumption of fluid, when hasHeatingKwh
	hasHeatingKwh  bool
	heatingPrice   float64 // EUR/kWh of fluid
	gasPrice       float64
	elecPrice      float64
	primaryKwhPerM *float64 // primary energy per m², when the surface and a consumption are known
}

// heatingFluid is the fluid of the heating system, else that of the heating consumption given
// (gas when both are).
func heatingFluid(in Input) Fluid {
	if system, ok := in.Text(KeyHeatingSystem); ok {
		if system == systemGasBoiler || system == systemCondensing {
			return FluidGas
		}
		return FluidElec
	}
	switch {
	case in.Has(KeyGasHeatingKwh):
		return FluidGas
	case in.Has(KeyElecHeatingKwh):
		return FluidElec
	}
	return ""
}

// heatingKey is the input holding the heating consumption of a fluid.
func heatingKey(f Fluid) Key {
	if f == FluidElec {
		return KeyElecHeatingKwh
	}
	return KeyGasHeatingKwh
}

// derive computes the heating fluid, its consumption and price, and the primary energy per m².
func derive(in Input) derived {
	d := derived{fluid: heatingFluid(in), gasPrice: defaultGasPriceEur, elecPrice: defaultElecPriceEur}
	if p, ok := in.Number(KeyGasPrice); ok {
		d.gasPrice = p
	}
	if p, ok := in.Number(KeyElecPrice); ok {
		d.elecPrice = p
	}
	if d.fluid != "" {
		d.heatingKwh, d.hasHeatingKwh = in.Number(heatingKey(d.fluid))
		d.heatingPrice = d.gasPrice
		if d.fluid == FluidElec {
			d.heatingPrice = d.elecPrice
		}
	}
	// Primary energy: gas heating × 1 + electricity × 2.3, the electricity being all uses when
	// given, else the electric heating alone.
	gas, hasGas := in.Number(KeyGasHeatingKwh)
	elec, hasElec := in.Number(KeyElecKwh)
	if !hasElec {
		elec, hasElec = in.Number(KeyElecHeatingKwh)
	}
	if surface, ok := in.Number(KeySurface); ok && (hasGas || hasElec) {
		perM2 := (gas + elec*elecPrimaryFactor) / surface
		d.primaryKwhPerM = &perM2
	}
	return d
}

// round2 rounds kWh and euros to 0.01, their precision at the output.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
