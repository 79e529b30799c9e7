package apidocs

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/consumption"
)

// GasConsumptionParams is the query of GET /v2/sites/{site-id}/fluids/gas/consumptions: the
// electricity parameters but dataSources and loadCurveCompletion (gas has indexes only).
type GasConsumptionParams struct {
	ConsumptionStepParams
}

const gasConsumptionDescription = `Gas consumption of the site over [startTs, endTs), one item per step, at most 1,200 items, from the site's cyclic gas indexes.

**As for electricity.** Parameters, steps, window, ` + "`computationPeriod`" + `, strategies, options and item members are those of the electricity consumption (get-site-elec-consumptions), without dataSources and loadCurveCompletion: gas has indexes only. The index rules are the same: natures and their categories, an _INVALID record of a later generation removes its family's index, the latest generationTs wins, the priority of natures, a meter change (two readings at one ts, indexBeforeChange true then false) counts the old meter up to its last index and the new one from its first.

**Energy.** ` + "`units.energyMeter`" + ` is kWh: the energy between two readings is the index difference × the later reading's ` + "`conversionFactors.kWh`" + ` (1 when the index unit is kWh). A reading with neither cannot give the energy of the interval it closes: that interval covers nothing (MISSING_DATA) and the steps it touches carry the error flag MISSING_CONVERSION_FACTOR. ` + "`byTariffHeading`" + ` has the single heading BASE.

**Volume.** Each item carries ` + "`volume: {total, unit}`" + `: the index differences behind its energy (prorated like the energy), in the index unit of the latest reading of the answer (for example m3); intervals read in another unit are not counted in it; total null when the step has no data.

**Cost and carbon.** Cost from the site's gas tariff (` + "`gasTariffId`" + `, option GAS, heading BASE, prices in EUR/kWh applied day by day, the standing charge prorated by local day); a site without gas tariff gets no cost member. Carbon (option withCarbonFootprint): the gas tariff's carbonCoefficient, else the service's gas default, 0.227 kgCO2e/kWh (ADEME Base Empreinte, natural gas) unless configured otherwise.

**Errors.** As for electricity: 400 INVALID_PARAMETER naming the parameter, 400 PERIOD_TOO_LONG, 404 SITE_NOT_FOUND.

**Caching.** Answers are cached per site and request and invalidated by every ingest touching the site and every site or tariff change (response header X-Cache: HIT or MISS).`

// registerGasConsumption registers GET /v2/sites/{site-id}/fluids/gas/consumptions.
func registerGasConsumption(api huma.API, h *consumptionHandler) {
	huma.Register(api, h.operation("get-site-gas-consumptions", gasConsumptionPath,
		"Gas consumption of a site", gasConsumptionDescription,
		"The gas consumption of each step in kWh, with its volume (and of the whole period with withGlobalConsumption)"), h.getGas)
}

// getGas answers the gas consumption: the electricity query's parsing and rules, on the gas fluid.
func (h *consumptionHandler) getGas(ctx context.Context, in *GasConsumptionParams) (*consumptionOutput, error) {
	q, err := parseConsumptionQuery(&ConsumptionParams{ConsumptionStepParams: in.ConsumptionStepParams})
	if err != nil {
		return nil, err
	}
	q.req.Fluid = consumption.FluidGas
	return h.answer(ctx, in.SiteID, q)
}
