package apidocs

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/consumption"
)

// GasConsumptionParams is the query of GET /v2/sites/{site-id}/fluids/gas/consumptions: the
// electricity parameters but dataSources and loadCurveCompletion (gas has indexes only).
type GasConsumptionParams struct {
	SiteID  string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	StartTs string `query:"startTs" required:"true" example:"2024-01-01T00:00:00" doc:"Start of the period (included). Formats: YYYY-MM-DDThh:mm:ss (read in the site's time zone; a local time skipped by a DST change moves forward by the gap, a repeated one is the first), YYYY-MM-DDThh:mm:ssZ (UTC) or YYYY-MM-DDThh:mm:ss+hh:mm / -hh:mm (a '+' left unencoded, read as a space, is accepted). Years 1970 to 2100."`
	EndTs   string `query:"endTs" required:"true" example:"2025-01-01T00:00:00" doc:"End of the period (excluded), same formats; must be after startTs."`

	StepUnit  string `query:"stepUnit" enum:"YEARS,MONTHS,DAYS,HOURS,MINUTES" example:"DAYS" doc:"Unit of the step. YEARS, MONTHS and DAYS follow the site's calendar (a DST day lasts 23 or 25 hours); HOURS and MINUTES are fixed durations. The last step is cut at endTs. Absent: one step covering the whole period."`
	StepValue int    `query:"stepValue" minimum:"1" maximum:"1000" default:"1" example:"1" doc:"Number of stepUnit per step, 1 to 1000; only with stepUnit."`

	IndexCategories []string `query:"indexCategories,explode" example:"LEGACY_METER" doc:"Index categories allowed for the calculation, repeatable or comma-separated: RTM, SUPPLIER, SMART_METER (nature MKT_SMART_DISTRIBUTOR), LEGACY_METER (MKT_CYCLIC_DISTRIBUTOR), SENSOR, STEREO, SELF_METER_READING (DTN_CUSTOMER_ACK, MKT_CUSTOMER), ESTIMATED (MKT_ESTIMATION). Default: all."`
	IndexStrategy   string   `query:"indexStrategy" enum:"NO_ESTIMATED,ALL_ESTIMATED,SURROUNDING_ESTIMATED" default:"SURROUNDING_ESTIMATED" doc:"NO_ESTIMATED: no estimated index is used (steps shrink to the real readings they contain). ALL_ESTIMATED: estimated and interpolated indexes may be used anywhere. SURROUNDING_ESTIMATED: only at the start and end of the requested period, where real ones are missing."`

	Options []string `query:"options,explode" example:"withCarbonFootprint" doc:"Repeatable or comma-separated: withoutCost (no cost member), withCarbonFootprint (carbonFootprint member, kgCO2e), withGlobalConsumption (globalConsumption member for the whole period; the period may then end at most one calendar year, in the site's time zone, after its start, else 400 PERIOD_TOO_LONG), withRatioByTariffHeading (ratios member: the single heading BASE)."`

	stepValueGiven bool
}

// Resolve notes whether stepValue was sent: its default must not hide a stepValue without stepUnit.
func (p *GasConsumptionParams) Resolve(ctx huma.Context) []error {
	p.stepValueGiven = ctx.Query("stepValue") != ""
	return nil
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
	huma.Register(api, h.operation("get-site-gas-consumptions", "/v2/sites/{site-id}/fluids/gas/consumptions",
		"Gas consumption of a site", gasConsumptionDescription,
		"The gas consumption of each step in kWh, with its volume (and of the whole period with withGlobalConsumption)"), h.getGas)
}

// getGas answers the gas consumption: the electricity query's parsing and rules, on the gas fluid.
func (h *consumptionHandler) getGas(ctx context.Context, in *GasConsumptionParams) (*consumptionOutput, error) {
	q, err := parseConsumptionQuery(&ConsumptionParams{
		SiteID: in.SiteID, StartTs: in.StartTs, EndTs: in.EndTs, StepUnit: in.StepUnit, StepValue: in.StepValue,
		IndexCategories: in.IndexCategories, IndexStrategy: in.IndexStrategy, Options: in.Options, stepValueGiven: in.stepValueGiven,
	})
	if err != nil {
		return nil, err
	}
	q.req.Fluid = consumption.FluidGas
	return h.answer(ctx, in.SiteID, q)
}
