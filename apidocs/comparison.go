package apidocs

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/cache"
	"energy/query/comparison"
	"energy/query/consumption"
	"energy/query/weather"
	"energy/schema/registry"
)

const comparisonDescription = `One item per requested year N, comparing N with N−1 over the same months: the whole year, or for the ongoing year (in the site's time zone) January to the last complete month. Items come in the order of the years given.

**Consumption.** Energy (Wh) and cost (EUR, energy plus standing charge) are what GET /v2/sites/{site-id}/fluids/elec/consumptions answers for the same period as a single step (startTs = fromDate at local midnight, endTs = the day after toDate, default index strategy), so both endpoints agree. energiesByTariffHeading is Wh by heading; costsByTariffHeading is the energy cost by heading (no standing charge). energy is null when the period has no usable data; cost is null when the site has no tariff or the period no data.

**Rates.** energyDifferenceRate and costDifferenceRate = (N − (N−1)) / (N−1) × 100, rounded to 2 decimals; null when the N−1 value is 0 or missing, or the N value is missing.

**Weather impact.** Heating degree days, base 18 °C: each local day of the site counts max(0, 18 − the mean of that day's observations at the site's weather station). When both periods have observations on every day and their degree days differ by 5 % or more (degreeDaysDifferenceRate = (N − (N−1)) / (N−1) × 100, 2 decimals), weatherImpactMessageCode says whether the weather was colder (more degree days) or warmer and whether N's energy is higher or lower than N−1's, and weatherImpactParameters gives degreeDaysCurrentYear, degreeDaysPreviousYear (2 decimals) and degreeDaysDifferenceRate. Both members are omitted under 5 %, when a day lacks weather data, when the site has no weather station, or when an energy is missing or the two energies are equal (neither higher nor lower).

**Errors.** years missing, not yyyy, repeated, before 2000, in the future, more than 10, or the ongoing year while January is not over (no complete month to compare yet): 400 INVALID_PARAMETER naming the value. An unknown site, or a site of another tenant: 404 SITE_NOT_FOUND.

**Caching.** Answers are cached per site, years and current month, and invalidated by every ingest touching the site, by site and tariff changes and by new weather observations (response header X-Cache: HIT or MISS).`

type comparisonOutput struct {
	ContentType string `header:"Content-Type"`
	Cache       string `header:"X-Cache" doc:"HIT when the answer came from the result cache, MISS when it was computed. Cached answers are never stale: an ingest for the site, a site or tariff change, or new weather observations invalidate them."`
	Body        []byte
}

type comparisonInput struct {
	SiteID string   `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	Years  []string `query:"years,explode" required:"true" doc:"Years yyyy separated by commas (years=2023,2024), or the parameter repeated; at most 10" example:"2023,2024"`
}

// comparisonHandler serves the yearly comparison (scope read).
type comparisonHandler struct {
	comparisons *comparison.Comparisons
	sites       *registry.Directory
}

// registerComparison registers the yearly comparison. A nil comparisons gets a default
// consumption engine (energy and cost do not depend on the carbon coefficient) and the
// stations' cached daily means, behind a default-sized cache.
func registerComparison(api huma.API, reg *registry.Store, comparisons *comparison.Comparisons) {
	if comparisons == nil {
		engine := consumption.NewEngine(reg.DB(), reg, DefaultCarbonCoefficient)
		means := weather.NewCachedMeans(weather.NewStore(reg.DB()), reg.Versions)
		comparisons = comparison.NewComparisons(comparison.NewEngine(engine, means), reg.Versions, cache.DefaultEntries, cache.DefaultBytes)
	}
	h := &comparisonHandler{comparisons: comparisons, sites: reg.Directory}
	// The body is cached JSON bytes: the operation declares its shape since Huma cannot see it.
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[[]comparison.YearComparison](), true, "")
	huma.Register(api, huma.Operation{
		OperationID: "get-site-yearly-elec-energies-comparisons", Method: http.MethodGet, Path: "/v1/sites/{site-id}/yearly-elec-energies-comparisons",
		Tags: []string{"Consumption"}, Summary: "Yearly electricity compared with the previous year", Description: comparisonDescription,
		Security: requireScopes(registry.ScopeRead),
		Responses: map[string]*huma.Response{"200": {
			Description: "One comparison per requested year",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: schema}},
		}},
	}, h.get)
}

func (h *comparisonHandler) get(ctx context.Context, in *comparisonInput) (*comparisonOutput, error) {
	if registry.ValidID("site-id", in.SiteID) != nil {
		return nil, SiteNotFound(in.SiteID)
	}
	s, err := h.sites.Site(ctx, Caller(ctx).TenantID, in.SiteID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, SiteNotFound(in.SiteID)
	} else if err != nil {
		return nil, err
	}
	now := time.Now()
	years, err := comparison.ParseYears(in.Years, now, s.Location())
	if err != nil {
		return nil, yearsParamError(err)
	}
	body, hit, err := h.comparisons.JSON(ctx, s, years, now)
	if err != nil {
		return nil, yearsParamError(err)
	}
	out := &comparisonOutput{ContentType: "application/json", Cache: "MISS", Body: body}
	if hit {
		out.Cache = "HIT"
	}
	return out, nil
}

func yearsParamError(err error) error {
	var ye *comparison.YearsError
	if errors.As(err, &ye) {
		if ye.Value == "" {
			return BadParam("query parameter years: %s", ye.Message)
		}
		return BadParam("query parameter years: %q %s", ye.Value, ye.Message)
	}
	return err
}
