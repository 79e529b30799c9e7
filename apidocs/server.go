// Package apidocs is the HTTP surface: Huma operations on chi, the error model, request ids,
// authentication, metrics and the OpenAPI description.
package apidocs

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"energy/ingest"
	"energy/query/advices"
	"energy/query/comparison"
	"energy/query/heating"
	"energy/query/targets"
	"energy/schema/erasure"
	"energy/schema/registry"
)

// APIVersion is the version of the collection API description (the info.version of
// apidocs/openapi.yaml); the paths carry their own /v1 or /v2 segment.
const APIVersion = "0.0.1"

// Config is what the HTTP surface needs; each feature takes only its own part.
type Config struct {
	Registry *registry.Store
	// Ready reports whether the service can answer (migrations applied, ClickHouse up).
	Ready func(context.Context) error
	// Live reports whether the process can still do its work (its embedded store can be
	// restarted); nil means always.
	Live func(context.Context) error
	// PublicURL is the base of returned links; empty means "from the request".
	PublicURL string
	// Logger receives the access log and error details; nil means slog.Default().
	Logger *slog.Logger
	// Consumptions answers the electricity consumption (the engine behind its result cache); nil: defaults.
	Consumptions ConsumptionService
	// Budgets answers the budget matrix and heating budget; nil: defaults.
	Budgets *heating.Budgets
	// Comparisons answers the yearly comparison (over the consumption engine, behind its
	// result cache); nil: defaults.
	Comparisons *comparison.Comparisons
	// Jobs is the archive intake (submission and jobs). Every operation is registered whatever
	// the configuration, so that the description never depends on it: an operation whose
	// service is nil fails with 500 (only tests that do not call it leave it nil).
	Jobs *ingest.Service
	// Advices runs recommendation jobs (endpoint 10, advice listener).
	Advices *advices.Service
	// Targets and Outbox serve the target endpoints.
	Targets *targets.Store
	Outbox  *targets.Outbox
	// UploadRate is the slowest archive upload waited for; zero fields take the defaults.
	UploadRate UploadRate
	// Erasures erases sites on request (DELETE /v2/sites/{siteId}).
	Erasures *erasure.Service
	// RateLimiter bounds each token's requests on both listeners; nil: unlimited.
	RateLimiter *RateLimiter
}

// serverDescription says where each listener answers; the description's server is relative:
// the listener that serves the document.
var serverDescription = map[string]string{
	"main":   "the main API, where this document is served (energyd --listen, default :8080)",
	"advice": "the recommendation API, where this document is served (energyd --advice-listen, default :8081)",
}

// newAPI builds a chi router with the shared middleware and a Huma API on it.
func newAPI(listener, title, description string, cfg Config) (chi.Router, huma.API) {
	router := chi.NewRouter()
	router.Use(withRequestID, measure(listener, cfg.Logger), recoverPanics, compressAnswers)
	hc := huma.DefaultConfig(title, APIVersion)
	hc.Info.Description = description + "\n" + apiOverview
	hc.CreateHooks = nil // no $schema member in bodies
	hc.DocsPath = ""     // served offline by addDocs
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		bearerScheme: {Type: "http", Scheme: "bearer", Description: "Opaque token created with `energyctl token create`; scopes: collect, read, targets, advices, admin (implies all)."},
	}
	hc.Servers = []*huma.Server{{URL: "/", Description: serverDescription[listener]}}
	hc.Info.License = &huma.License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"}
	hc.OnAddOperation = append(hc.OnAddOperation, documentErrors)
	withCSVFormat(&hc)
	api := humachi.New(router, hc)
	api.UseMiddleware(authenticate(api, cfg.Registry))
	api.UseMiddleware(limitRate(api, cfg.RateLimiter))
	api.UseMiddleware(rejectAmbiguousJSON)
	api.UseMiddleware(negotiateCSV(api))
	router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, Fail(http.StatusNotFound, CodeNotFound, "no resource at %s %s", r.Method, r.URL.Path))
	})
	router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(allowedMethods(router, r.URL.Path), ", "))
		writeError(w, Fail(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	router.Handle("/metrics", promhttp.Handler())
	addDocs(router)
	registerHealth(api, cfg.Live, cfg.Ready)
	return router, api
}

// allowedMethods lists the methods routed on path, for the Allow header of a 405.
func allowedMethods(router chi.Router, path string) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if router.Match(chi.NewRouteContext(), m, path) {
			out = append(out, m)
		}
	}
	return out
}

// NewMain returns the main service ({base_url}): every /v1 and /v2 path but the recommendation job.
func NewMain(cfg Config) (http.Handler, huma.API) {
	router, api := newAPI("main", "Energy data service",
		"Collects smart-meter archives and answers consumption, comparison, heating, weather and target questions.", cfg)
	registerRegistry(api, cfg.Registry)
	registerWeather(api, cfg.Registry)
	registerHeatingSchedule(api, cfg.Registry)
	registerComparison(api, cfg.Registry, cfg.Comparisons)
	registerConsumption(api, cfg.Registry, cfg.Consumptions)
	registerContractOptimizer(api, cfg.Registry)
	registerBudgets(api, cfg.Registry, cfg.Budgets)
	registerJobs(api, cfg)
	registerTargets(api, cfg.Registry, cfg.Targets, cfg.Outbox)
	registerErasure(api, cfg)
	registerExport(api, cfg.Registry)
	return routedHandler{routes: router, handler: limitUpload(router, cfg.UploadRate)}, api
}

// routedHandler serves through handler and lists the routes beneath it, so that chi.Walk
// reaches the routes of the handler energyd serves (the test comparing them with the
// committed descriptions).
type routedHandler struct {
	routes
	handler http.Handler
}

// routes names the embedded chi.Routes so that its Routes method is promoted (a field named
// Routes would hide it).
type routes = chi.Routes

func (h routedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// NewAdvice returns the recommendation service ({simulation_url}).
func NewAdvice(cfg Config) (http.Handler, huma.API) {
	router, api := newAPI("advice", "Energy recommendation service",
		"Produces savings advice from housing inputs through jobs.", cfg)
	registerAdvices(api, cfg.Advices)
	return router, api
}

// site loads a site of the caller's tenant; unknown and foreign sites are both 404.
func site(ctx context.Context, reg *registry.Store, siteID string) (registry.Site, error) {
	s, err := reg.Directory.Site(ctx, Caller(ctx).TenantID, siteID)
	if errors.Is(err, registry.ErrNotFound) {
		return s, SiteNotFound(siteID)
	}
	return s, err
}
