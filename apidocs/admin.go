package apidocs

import (
	"errors"
	"net/http"

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
