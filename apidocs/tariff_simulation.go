package apidocs

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/cache"
	"energy/query/consumption"
	"energy/query/contract"
	"energy/schema/registry"
)

// TariffSimulationParams is the query of GET /v2/sites/{site-id}/fluids/elec/tariff-simulations.
type TariffSimulationParams struct {
	SiteID    string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	StartTs   string `query:"startTs" required:"true" example:"2025-01-01T00:00:00" doc:"Start of the period (included), in the formats of the consumption endpoint."`
	EndTs     string `query:"endTs" required:"true" example:"2026-01-01T00:00:00" doc:"End of the period (excluded), same formats; after startTs and at most 366 days after it."`
	TariffIDs string `query:"tariffIds" required:"true" example:"BASE-6,BASE-9,TEMPO-9" doc:"Comma-separated ids of 1 to 20 electricity tariffs of the tenant (not GAS). The site's own tariff is always simulated as the reference."`
}

const tariffSimulationDescription = `The site's real energy over [startTs, endTs) priced under each candidate tariff and under the site's own (the reference, listed once), with each candidate's subscribed power checked against the site's daily max powers.

**One energy for all.** INDEXES when the site's indexes give the period's energy (the consumption endpoint's whole-period step is not NO_DATA) and price every candidate exactly: a single-heading candidate takes the whole energy; another must map exactly the dials the indexes carry, on the site's own tariff's timeOfUse. Otherwise LOAD_CURVE: every candidate is priced from the load curve, split by its own timeOfUse and day colours as the consumption endpoint does; quality is then the share of the period covered by real points, and under 90 the answer is 422 INSUFFICIENT_DATA saying how much the load curve covers.

**Cost.** Σ heading kWh × the candidate's price in force that local day, plus its standing charge prorated by day, rounded once to 0.01 EUR. NOT_COMPUTABLE (no price in force on a date, a colour day missing from the calendar) carries reason naming the first date concerned, no cost, and is listed last.

**Power.** maxPower is the period's highest daily max power and its date. A candidate with subscribedPowerKva gets overrunDays (dates above kVA × 1,000 W); overrunDays > 0 makes it INSUFFICIENT_POWER.

**Ranking.** Ascending cost.total, ties in request order. cheapest is true on the OK item of lowest cost. differenceVsReference: cost.total − the reference's, and that over the reference's cost in percent (null when the reference costs 0).

**Errors.** 400 INVALID_PARAMETER for an unknown tariff id, a GAS tariff, more than 20 ids, a period over 366 days, or a bad timestamp; 404 SITE_NOT_FOUND. Answers are cached and invalidated by new readings, tariff and calendar changes (X-Cache).`

// tariffSimulationHandler serves the tariff simulations (scope read).
type tariffSimulationHandler struct {
	cached *contract.Cached
	reg    *registry.Store
}

// registerTariffSimulations registers GET /v2/sites/{site-id}/fluids/elec/tariff-simulations.
func registerTariffSimulations(api huma.API, reg *registry.Store) {
	engine := contract.NewEngine(reg.DB(), reg, consumption.NewEngine(reg.DB(), reg, consumption.DefaultCarbonCoefficient))
	h := &tariffSimulationHandler{reg: reg, cached: contract.NewCached(engine, reg.Versions, cache.DefaultEntries, cache.DefaultBytes)}
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[contract.Simulations](), true, "TariffSimulationResult")
	huma.Register(api, huma.Operation{
		OperationID: "get-site-elec-tariff-simulations", Method: http.MethodGet, Path: "/v2/sites/{site-id}/fluids/elec/tariff-simulations",
		Tags: []string{"Consumption"}, Summary: "Compare electricity tariffs on a site's real data", Description: tariffSimulationDescription,
		Security: requireScopes(registry.ScopeRead), Errors: []int{http.StatusUnprocessableEntity},
		Responses: map[string]*huma.Response{"200": {
			Description: "Every tariff priced on the same energy, cheapest first",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: schema}},
		}},
	}, h.get)
}

func (h *tariffSimulationHandler) get(ctx context.Context, in *TariffSimulationParams) (*consumptionOutput, error) {
	start, err := parseStamp("startTs", in.StartTs)
	if err != nil {
		return nil, err
	}
	end, err := parseStamp("endTs", in.EndTs)
	if err != nil {
		return nil, err
	}
	ids, err := contract.SplitTariffIDs(in.TariffIDs)
	if err != nil {
		return nil, requestError(err)
	}
	if registry.ValidID("site-id", in.SiteID) != nil {
		return nil, SiteNotFound(in.SiteID)
	}
	key := string(end.appendKey(append(start.appendKey(nil), ' '))) + " " + strings.Join(ids, ",")
	tenant := Caller(ctx).TenantID
	body, hit, err := h.cached.JSON(ctx, tenant, in.SiteID, key, func(ctx context.Context) (registry.Site, contract.Request, error) {
		s, err := h.reg.Directory.Site(ctx, tenant, in.SiteID)
		if errors.Is(err, registry.ErrNotFound) {
			return s, contract.Request{}, SiteNotFound(in.SiteID)
		}
		if err != nil {
			return s, contract.Request{}, err
		}
		loc := s.Location()
		req, err := contract.NewRequest(ctx, h.reg.Directory.Tariff, tenant, loc, start.in(loc), end.in(loc), ids)
		return s, req, requestError(err)
	})
	var ie *contract.InsufficientDataError
	if errors.As(err, &ie) {
		return nil, Fail(http.StatusUnprocessableEntity, CodeInsufficientData, "%s", ie.Error())
	}
	if err != nil {
		return nil, err
	}
	return cachedOutput(ctx, body, hit, nil)
}

// requestError maps a request the simulation refuses to 400 INVALID_PARAMETER naming the parameter.
func requestError(err error) error {
	var re *contract.RequestError
	if errors.As(err, &re) {
		return BadParam("query parameter %s: %s", re.Param, re.Message)
	}
	return err
}
