package consumption

import "energy/schema/registry"

// DefaultCarbonCoefficient is the service's default emission factor of electricity in kgCO2e/kWh
// when a tariff names none: ADEME Base Empreinte, "Electricité - 2022 - usage : Mix moyen -
// consommation" for France (0.052 kgCO2e/kWh). energyd makes it configurable.
const DefaultCarbonCoefficient = 0.052

// DefaultGasCarbonCoefficient is the service's default emission factor of natural gas in
// kgCO2e/kWh when a gas tariff names none: ADEME Base Empreinte, natural gas, average French
// supply mix, combustion and upstream (0.227 kgCO2e/kWh). energyd makes it configurable.
const DefaultGasCarbonCoefficient = 0.227

// carbonCoefficient is the tariff's carbonCoefficient, or else the service default.
func carbonCoefficient(t *registry.Tariff, fallback float64) float64 {
	if t != nil && t.CarbonCoefficient != nil {
		return *t.CarbonCoefficient
	}
	return fallback
}

// carbonFootprint is the footprint of an item: kWh × coefficient, null without data.
func carbonFootprint(wh *float64, coefficient float64) *CarbonFootprint {
	cf := &CarbonFootprint{Coefficient: coefficient}
	if wh != nil {
		v := roundTo(*wh/1000*coefficient, carbonDecimals)
		cf.Total = &v
	}
	return cf
}
