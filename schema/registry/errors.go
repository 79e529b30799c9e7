// Package registry stores and validates the service's reference data: tenants, API tokens,
// sites, tariffs and weather stations. ingest, query and apidocs share it.
package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotFound is returned when a tenant's site, tariff, station or token does not exist.
var ErrNotFound = errors.New("not found")

// ErrUnauthenticated is returned for a secret that is unknown, malformed, revoked or expired.
var ErrUnauthenticated = errors.New("token unknown, revoked or expired")

// FieldError is a bad value in a resource; Field is the JSON path of the value.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// oneOf checks that v is one of values, naming field and the values otherwise ("must be GAS,
// ELEC or NONE (got \"X\")").
func oneOf(field, v string, values ...string) error {
	if slices.Contains(values, v) {
		return nil
	}
	last := len(values) - 1
	return fieldErr(field, "must be %s or %s (got %q)", strings.Join(values[:last], ", "), values[last], v)
}
