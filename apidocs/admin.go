package apidocs

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// pathID checks a path identifier and an optional identical copy in the body.
func pathID(field, path, body string) error {
	if err := registry.ValidID(field, path); err != nil {
		return BadParam("path parameter %s: %s", field, err.(*registry.FieldError).Message)
	}
	if body != "" && body != path {
		return BadParam("body field %s: %q differs from the path's %q", field, body, path)
	}
	return nil
}

// notFound maps registry.ErrNotFound to the resource's 404.
func notFound(err error, what, id string) error {
	if errors.Is(err, registry.ErrNotFound) {
		return Fail(http.StatusNotFound, CodeNotFound, "%s %q does not exist", what, id)
	}
	return err
}

// registryHandler serves the registry resources: sites, tariffs and weather stations.
type registryHandler struct{ reg *registry.Store }

func registerRegistry(api huma.API, reg *registry.Store) {
	h := &registryHandler{reg: reg}
	registerPutGet(api, registryResource{operation: "site", name: "site", path: "/v2/sites/{siteId}",
		putDescription: "Every field is optional; timezone defaults to Europe/Paris and heatingFluid to NONE. A tariffId or weatherStationId that does not exist is rejected with 400 naming it.",
		readScopes:     []registry.Scope{registry.ScopeAdmin, registry.ScopeRead},
	}, h.putSite, h.getSite)
	registerPutGet(api, registryResource{operation: "tariff", name: "tariff", path: "/v2/tariffs/{tariffId}",
		putDescription: "Dates are local dates of the site; a period runs until the next validFrom. Prices in EUR/kWh, standing charges in EUR/year.",
		readScopes:     []registry.Scope{registry.ScopeAdmin},
	}, h.putTariff, h.getTariff)
	registerPutGet(api, registryResource{operation: "weather-station", name: "weather station", path: "/v1/weather-stations/{stationId}",
		readScopes: []registry.Scope{registry.ScopeAdmin},
	}, h.putStation, h.getStation)
}

// resourceOutput is the answer of a registry resource's PUT and GET: the resource's body.
type resourceOutput[B any] struct {
	Body B
}

// readResource answers the GET of a registry resource: the body of what read finds under id in
// the caller's tenant, or 404 NOT_FOUND naming what and id.
func readResource[T, B any](ctx context.Context, what, id string, read func(ctx context.Context, tenantID, id string) (T, error), body func(T) B) (*resourceOutput[B], error) {
	v, err := read(ctx, Caller(ctx).TenantID, id)
	if err != nil {
		return nil, notFound(err, what, id)
	}
	return &resourceOutput[B]{Body: body(v)}, nil
}

// registryResource is a registry resource that clients create or replace whole with PUT and
// read with GET at one path (sites, tariffs, weather stations); writing takes scope admin.
type registryResource struct {
	operation      string // the operations are put-<operation> and get-<operation>
	name           string // in the summaries: "site", "weather station"
	path           string
	putDescription string
	readScopes     []registry.Scope
}

// registerPutGet registers the PUT and GET operations of r, served by put and get.
func registerPutGet[PutIn, GetIn, Out any](api huma.API, r registryResource,
	put func(context.Context, *PutIn) (*Out, error), get func(context.Context, *GetIn) (*Out, error)) {
	huma.Register(api, huma.Operation{
		OperationID: "put-" + r.operation, Method: http.MethodPut, Path: r.path, Tags: []string{"Admin"},
		Summary: "Create or replace a " + r.name, Security: requireScopes(registry.ScopeAdmin),
		Description: r.putDescription,
	}, put)
	huma.Register(api, huma.Operation{
		OperationID: "get-" + r.operation, Method: http.MethodGet, Path: r.path, Tags: []string{"Admin"},
		Summary: "Read a " + r.name, Security: requireScopes(r.readScopes...),
	}, get)
}
