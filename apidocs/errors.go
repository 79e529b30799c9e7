package apidocs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema"
	"energy/schema/registry"
)

// Error codes of the API (apidocs/README.md, "Errors").
const (
	CodeInvalidParameter   = "INVALID_PARAMETER"
	CodePeriodTooLong      = "PERIOD_TOO_LONG"
	CodeInvalidAuth        = "INVALID_AUTHORIZATION_HEADER_VALUE"
	CodeAccessDenied       = "ACCESS_DENIED"
	CodeSiteNotFound       = "SITE_NOT_FOUND"
	CodeJobNotFound        = "JOB_NOT_FOUND"
	CodeTargetNotFound     = "TARGET_NOT_FOUND"
	CodeNotFound           = "NOT_FOUND"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeFieldNotUpdatable  = "TARGET_FIELD_NOT_UPDATABLE"
	CodeInternal           = "INTERNAL_ERROR"
	CodeStorageUnavailable = "STORAGE_UNAVAILABLE"
	CodeRateLimited        = "RATE_LIMITED"
)

// retryAfterSeconds is what a 503 asks clients to wait.
const retryAfterSeconds = "5"

// APIError is the body of every error response: {"errorCode", "errorDescription"}.
type APIError struct {
	Status      int    `json:"-"`
	Code        string `json:"errorCode" doc:"Machine-readable error code" example:"INVALID_PARAMETER"`
	Description string `json:"errorDescription" doc:"What is wrong, naming the parameter or field" example:"query parameter stepValue: must be between 1 and 1000 (got 0)"`
	headers     http.Header
}

func (e *APIError) Error() string  { return e.Code + ": " + e.Description }
func (e *APIError) GetStatus() int { return e.Status }

// GetHeaders makes Huma write the error's headers (Retry-After on 503): huma.HeadersError.
func (e *APIError) GetHeaders() http.Header { return e.headers }

// Fail builds an error response with a status, a code and a description.
func Fail(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

// BadParam is a 400 INVALID_PARAMETER naming the parameter.
func BadParam(format string, args ...any) *APIError {
	return Fail(http.StatusBadRequest, CodeInvalidParameter, format, args...)
}

// SiteNotFound is the 404 for unknown sites and sites of other tenants alike.
func SiteNotFound(siteID string) *APIError {
	return Fail(http.StatusNotFound, CodeSiteNotFound, "site %q does not exist", siteID)
}

func init() {
	huma.NewErrorWithContext = newError
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return newError(nil, status, msg, errs...)
	}
}

// newError turns whatever Huma or a handler reports into the contract's error body:
// validation failures become 400 INVALID_PARAMETER with the parameter named, storage
// outages 503 with Retry-After, and anything unexpected 500 carrying the request id.
func newError(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
	e := buildError(hctx, status, msg, errs...)
	// Huma only copies headers of errors that handlers return themselves; a raw error
	// classified here (storage down) or an error written by middleware needs them set now.
	if hctx != nil {
		for k, vs := range e.headers {
			for i, v := range vs {
				if i == 0 {
					hctx.SetHeader(k, v)
				} else {
					hctx.AppendHeader(k, v)
				}
			}
		}
	}
	return e
}

func buildError(hctx huma.Context, status int, msg string, errs ...error) *APIError {
	var ctx context.Context = context.Background()
	if hctx != nil {
		ctx = hctx.Context()
	}
	for _, err := range errs {
		var api *APIError
		if errors.As(err, &api) {
			return api
		}
	}
	switch {
	case status == http.StatusUnprocessableEntity || status == http.StatusBadRequest:
		return BadParam("%s", describeValidation(msg, errs))
	case status == http.StatusUnsupportedMediaType:
		// Not a status of the contract: a body Huma cannot read is a malformed body value.
		ct := ""
		if hctx != nil {
			ct = hctx.Header("Content-Type")
		}
		return notJSON(ct)
	case status == http.StatusRequestEntityTooLarge:
		return Fail(status, CodeInvalidParameter, "the request body is too large")
	case status == http.StatusNotFound:
		return Fail(status, CodeNotFound, "%s", orDefault(msg, "no such resource"))
	case status == http.StatusMethodNotAllowed:
		return Fail(status, CodeMethodNotAllowed, "%s", orDefault(msg, "method not allowed"))
	case status == http.StatusUnauthorized:
		return Fail(status, CodeInvalidAuth, "%s", orDefault(msg, "the Authorization header is invalid"))
	case status == http.StatusForbidden:
		return Fail(status, CodeAccessDenied, "%s", orDefault(msg, "the Authorization token does not have permission to the resource"))
	case status < 500:
		return Fail(status, CodeInvalidParameter, "%s", msg)
	}
	return classify(ctx, errors.Join(errs...))
}

// classify maps a handler's raw error: field errors are 400, unreachable storage 503, the
// rest 500 with the request id (logged with the cause, never shown).
func classify(ctx context.Context, err error) *APIError {
	var fe *registry.FieldError
	switch {
	case errors.As(err, &fe):
		return BadParam("body field %s: %s", fe.Field, fe.Message)
	case schema.IsUnavailable(err) || errors.Is(err, context.DeadlineExceeded):
		return unavailable(ctx, err, "the data store is unavailable")
	}
	id := RequestID(ctx)
	slog.ErrorContext(ctx, "internal error", "requestId", id, "error", err)
	return Fail(http.StatusInternalServerError, CodeInternal, "an unexpected error occurred; quote request id %s when reporting it", id)
}

// unavailable is the 503 STORAGE_UNAVAILABLE answer, with Retry-After, for what (a sentence
// without its end); err is logged, never shown.
func unavailable(ctx context.Context, err error, what string) *APIError {
	e := Fail(http.StatusServiceUnavailable, CodeStorageUnavailable, "%s; retry in %s seconds", what, retryAfterSeconds)
	e.headers = http.Header{"Retry-After": {retryAfterSeconds}}
	slog.ErrorContext(ctx, "storage unavailable", "requestId", RequestID(ctx), "error", err)
	return e
}

// describeValidation writes Huma's validation details as one sentence per bad value,
// each naming the parameter or body field.
func describeValidation(msg string, errs []error) string {
	var parts []string
	for _, err := range errs {
		var d *huma.ErrorDetail
		if errors.As(err, &d) {
			loc, message := d.Location, d.Message
			// "body: expected required property x to be present" names the field itself.
			if m := requiredProperty.FindStringSubmatch(message); m != nil {
				loc, message = loc+"."+m[1], "is required"
				parts = append(parts, describeLocation(loc)+": "+message)
				continue
			}
			parts = append(parts, describeLocation(loc)+": "+message+valueSuffix(d.Value))
			continue
		}
		if err != nil {
			parts = append(parts, err.Error())
		}
	}
	if len(parts) == 0 {
		return orDefault(msg, "invalid request")
	}
	return strings.Join(parts, "; ")
}

// requiredProperty matches Huma's message for a missing required body field.
var requiredProperty = regexp.MustCompile(`^expected required property (\S+) to be present$`)

func describeLocation(loc string) string {
	kind, name, ok := strings.Cut(loc, ".")
	if !ok {
		return loc
	}
	switch kind {
	case "query":
		return "query parameter " + name
	case "path":
		return "path parameter " + name
	case "header":
		return "header " + name
	case "body":
		return "body field " + name
	}
	return loc
}

// valueSuffix quotes the offending value when it is a scalar; a whole object or array
// (Huma gives the enclosing object for unknown or missing properties) would only be noise.
func valueSuffix(v any) string {
	if v == nil {
		return ""
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
		return ""
	}
	s := fmt.Sprint(v)
	if s == "" {
		return ""
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf(" (got %s)", s)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// writeError writes an error body outside Huma (router fallbacks, panics, auth before Huma).
func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("Content-Type", "application/json")
	for k, vs := range e.headers {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(e.Status)
	// encoding/json, not %q: Go quoting writes \xNN for control bytes and invalid UTF-8 (a
	// request path can carry both), which is not JSON.
	b, _ := json.Marshal(e)
	_, _ = w.Write(b)
}

// notJSON refuses a body sent as another type than JSON: the checks of JSON bodies (strictjson.go)
// would not have seen it.
func notJSON(contentType string) *APIError {
	return BadParam("request body: Content-Type %q is not supported; send the body as application/json", contentType)
}
