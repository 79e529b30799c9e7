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
