package advices

// Result answers one element: the values used and derived, the advices given and those ignored.
type Result struct {
	Context map[string]any    `json:"context" doc:"Every input used (key → value, default prices included), unknownInputs (sorted), heatingFluid, heatingKwh, heatingPriceEurPerKwh, heatingKwhPerM2, primaryEnergyKwhPerM2, energyClass (when known), totalSavingsKwh, totalSavingsEur"`
	Advices map[string]Saving `json:"advices" doc:"Each advice given, by code"`
	Ignored map[string]string `json:"ignored" doc:"Each advice not given, by code: NOT_APPLICABLE, MISSING_INPUT:<KEY> or NO_SAVING"`
}

// Compute applies the catalog to one input. It is pure: the same input gives the same result.
func Compute(in Input) Result {
	d := derive(in)
	r := Result{Context: map[string]any{}, Advices: map[string]Saving{}, Ignored: map[string]string{}}
	for k, v := range in.values {
		r.Context[string(k)] = v
	}
	r.Context[string(KeyGasPrice)] = d.gasPrice
	r.Context[string(KeyElecPrice)] = d.elecPrice
	r.Context["unknownInputs"] = in.unknown
	if d.fluid != "" {
		r.Context["heatingFluid"] = string(d.fluid)
		r.Context["heatingPriceEurPerKwh"] = d.heatingPrice
	}
	if d.hasHeatingKwh {
		r.Context["heatingKwh"] = d.heatingKwh
		if surface, ok := in.Number(KeySurface); ok {
			r.Context["heatingKwhPerM2"] = round2(d.heatingKwh / surface)
		}
	}
	if d.primaryKwhPerM != nil {
		r.Context["primaryEnergyKwhPerM2"] = round2(*d.primaryKwhPerM)
		r.Context["energyClass"] = EnergyClass(*d.primaryKwhPerM)
	}

	outcomes := make([]outcome, len(catalogAdvices))
	var otherKwh, otherEur float64
	for i, a := range catalogAdvices {
		o := a.evaluate(in, d)
		outcomes[i] = o
		if o.reason != "" {
			r.Ignored[o.code] = o.reason
			continue
		}
		r.Advices[o.code] = Saving{SavingsKwh: round2(o.kwh), SavingsEur: round2(o.eur), Rate: roundRate(o.rate), Basis: o.basis}
		if !o.heating {
			otherKwh += o.kwh
			otherEur += o.eur
		}
	}
	heatingKwh := d.heatingKwh * combinedHeatingRate(outcomes)
	r.Context["totalSavingsKwh"] = round2(heatingKwh + otherKwh)
	r.Context["totalSavingsEur"] = round2(heatingKwh*d.heatingPrice + otherEur)
	return r
}
