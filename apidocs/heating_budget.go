package apidocs

import (
	"context"
	"errors"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/cache"
	"energy/query/consumption"
	"energy/query/heating"
	"energy/schema/registry"
)

// CodeInsufficientData is the 422 of a heating model that cannot be fitted.
const CodeInsufficientData = "INSUFFICIENT_DATA"

// heatingModelDescription tells users what the budgets rest on.
const heatingModelDescription = "The budget comes from a degree-day model fitted on the site's own readings, the method of " +
	"PRISM (Fels, Princeton, 1986) and of the CalTRACK daily and billing methods used in measurement and verification: " +
	"energy per day = base + slope × heating degree days, where a day's heating degrees are max(0, balance point − its mean " +
	"temperature) at the site's weather station. The model is fitted on the intervals between consecutive readings of the " +
	"site's heating fluid (gas indexes × their kWh conversion factor, or electricity indexes) over the 365 days ending at the " +
	"site's last reading, however long ago (730 when fewer than 6 intervals), by weighted least squares (weights: interval lengths in days), trying " +
	"balance points 10.0 to 22.0 °C by 0.5 and keeping the best R² among fits with a positive slope and a non-negative base " +
	"(else an intercept-only model). A normal year averages the degree days of the station's complete calendar years up to " +
	"the fit period's end (the 10 most recent). Changing the schedule's set points shifts the balance point by the change of the schedule's mean set point " +
	"over the week; the yearly energy base × 365 + slope × normal-year degree days is priced at the heating fluid's price " +
	"in force today (standing charges excluded). 422 INSUFFICIENT_DATA when the site has no heating fluid, weather station, " +
	"tariff for the fluid, or fewer than 4 usable intervals covering 300 days. Checked on a published sample with a known " +
	"truth (OpenEEmeter's simulated daily gas use on real weather): balance point within 0.5 °C, heating energy within 3 %, " +
	"weather-normalised saving within 0.1 point."

type budgetInput struct {
	SiteID string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
}

type budgetOutput struct {
	ContentType string `header:"Content-Type"`
	Cache       string `header:"X-Cache" doc:"HIT when the answer came from the result cache, MISS when it was computed"`
	Body        []byte
}

// budgetHandler serves the budget matrix and the heating budget of a site.
type budgetHandler struct {
	budgets *heating.Budgets
	sites   *registry.Directory
}

func registerBudgets(api huma.API, reg *registry.Store, budgets *heating.Budgets) {
	if budgets == nil {
		engine := consumption.NewEngine(reg.DB(), reg, consumption.DefaultCarbonCoefficient)
		budgets = heating.NewBudgets(heating.NewBudgeter(reg.DB(), reg, engine), reg.Versions, cache.DefaultEntries, cache.DefaultBytes)
	}
	h := &budgetHandler{budgets: budgets, sites: reg.Directory}
	responses := func(t reflect.Type, name, what string) map[string]*huma.Response {
		schema := api.OpenAPI().Components.Schemas.Schema(t, true, name)
		return map[string]*huma.Response{"200": {Description: what, Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}}
	}
	huma.Register(api, huma.Operation{
		OperationID: "get-budget-matrix", Method: http.MethodGet, Path: "/v1/sites/{site-id}/budget/matrix", Tags: []string{"Heating"},
		Summary:     "Yearly heating budget for 25 pairs of COMFORT and ECO set points",
		Description: heatingModelDescription, Security: requireScopes(registry.ScopeRead), Errors: []int{http.StatusUnprocessableEntity},
		Responses: responses(reflect.TypeFor[heating.Matrix](), "BudgetMatrix", "The 25 budget vectors and the fitted model"),
	}, h.matrix)
	huma.Register(api, huma.Operation{
		OperationID: "get-heating-budget", Method: http.MethodGet, Path: "/v1/sites/{site-id}/budget/heating", Tags: []string{"Heating"},
		Summary:     "Yearly heating budget with the site's current schedule",
		Description: heatingModelDescription, Security: requireScopes(registry.ScopeRead), Errors: []int{http.StatusUnprocessableEntity},
		Responses: responses(reflect.TypeFor[heating.HeatingBudget](), "HeatingBudget", "The budget with the current schedule"),
	}, h.heatingBudget)
}

func (h *budgetHandler) matrix(ctx context.Context, in *budgetInput) (*budgetOutput, error) {
	return h.answer(ctx, in.SiteID, h.budgets.MatrixJSON)
}

func (h *budgetHandler) heatingBudget(ctx context.Context, in *budgetInput) (*budgetOutput, error) {
	return h.answer(ctx, in.SiteID, h.budgets.HeatingBudgetJSON)
}

type budgetAnswer func(ctx context.Context, tenantID, siteID string, load heating.SiteLoader) ([]byte, bool, error)

func (h *budgetHandler) answer(ctx context.Context, siteID string, get budgetAnswer) (*budgetOutput, error) {
	if registry.ValidID("site-id", siteID) != nil {
		return nil, SiteNotFound(siteID)
	}
	tenant := Caller(ctx).TenantID
	body, hit, err := get(ctx, tenant, siteID, func(ctx context.Context) (registry.Site, error) {
		s, err := h.sites.Site(ctx, tenant, siteID)
		if errors.Is(err, registry.ErrNotFound) {
			return s, SiteNotFound(siteID)
		}
		return s, err
	})
	var ie *heating.InsufficientDataError
	if errors.As(err, &ie) {
		return nil, Fail(http.StatusUnprocessableEntity, CodeInsufficientData, "%s", ie.Reason)
	} else if err != nil {
		return nil, err
	}
	out := &budgetOutput{ContentType: "application/json", Cache: "MISS", Body: body}
	if hit {
		out.Cache = "HIT"
	}
	return out, nil
}
