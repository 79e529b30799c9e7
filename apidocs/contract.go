package apidocs

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

func init() {
	// Arrays are never null in this API's bodies and parameters: describing them as
	// ["array", "null"] would let generated clients expect null and breaks query-parameter
	// decoding in common validators.
	huma.DefaultArrayNullable = false
}

// errorStatuses describes, for each error status an operation can answer, the error codes it
// carries; documentErrors adds them to every operation's description.
var errorStatuses = map[int]struct{ code, when string }{
	http.StatusBadRequest:            {CodeInvalidParameter, "INVALID_PARAMETER (or PERIOD_TOO_LONG where a period is bounded): a parameter or body value is missing, malformed or out of range; the description names it"},
	http.StatusUnauthorized:          {CodeInvalidAuth, "INVALID_AUTHORIZATION_HEADER_VALUE: the Authorization header is missing, not `Bearer <token>`, or the token is unknown, revoked or expired"},
	http.StatusForbidden:             {CodeAccessDenied, "ACCESS_DENIED: the token has none of the scopes the operation accepts"},
	http.StatusNotFound:              {CodeNotFound, "SITE_NOT_FOUND, JOB_NOT_FOUND, TARGET_NOT_FOUND or NOT_FOUND: the resource named in the path does not exist for the caller's tenant"},
	http.StatusRequestEntityTooLarge: {CodeInvalidParameter, "the request body is too large"},
	http.StatusUnprocessableEntity:   {CodeInvalidParameter, "the request is well-formed but cannot be carried out; errorCode says why"},
	http.StatusInternalServerError:   {CodeInternal, "INTERNAL_ERROR: a bug; the description carries the request id to quote"},
	http.StatusServiceUnavailable:    {CodeStorageUnavailable, "STORAGE_UNAVAILABLE: the data store does not answer; retry after the `Retry-After` seconds"},
	http.StatusTooManyRequests:       {CodeRateLimited, "RATE_LIMITED: the token sent more requests than its rate allows (energyd --rate-limit, --rate-limit-scopes); retry after the `Retry-After` seconds"},
}

// documentErrors completes an operation's description as it is registered, so that every
// operation, whoever adds it, documents each status it can answer with the error body: an
// operation without security is public (an explicit empty `security`), a protected one
// answers 401 and 403, one with parameters or a body 400, one with path parameters 404, one
// with a body 413, a protected one 429 (rate limits apply per token), and every one 500, 503
// and a default error response.
func documentErrors(_ *huma.OpenAPI, op *huma.Operation) {
	protected := len(op.Security) > 0
	if op.Security == nil {
		op.Security = []map[string][]string{}
	}
	hasBody := op.RequestBody != nil
	hasPath, hasParams := false, hasBody
	for _, p := range op.Parameters {
		hasParams = true
		if p.In == "path" {
			hasPath = true
		}
	}
	statuses := []int{http.StatusInternalServerError, http.StatusServiceUnavailable}
	if protected {
		statuses = append(statuses, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests)
	}
	if hasParams {
		statuses = append(statuses, http.StatusBadRequest)
	}
	if hasPath {
		statuses = append(statuses, http.StatusNotFound)
	}
	if hasBody {
		statuses = append(statuses, http.StatusRequestEntityTooLarge)
	}
	// Huma adds 422 to operations with path parameters or a body, but validation failures are
	// 400 here: keep 422 only where the operation declared it itself.
	if !declares422(op, hasPath || hasBody) {
		delete(op.Responses, "422")
	}
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	for _, s := range statuses {
		key := strconv.Itoa(s)
		if _, ok := op.Responses[key]; !ok {
			op.Responses[key] = &huma.Response{Description: http.StatusText(s), Content: map[string]*huma.MediaType{}}
		}
	}
	op.Responses["default"] = &huma.Response{Content: map[string]*huma.MediaType{}}
	for key, r := range op.Responses {
		status, err := strconv.Atoi(key)
		if key != "default" && (err != nil || status < 400) {
			continue
		}
		describeError(r, status, key == "default")
	}
}

// declares422 tells whether 422 is among the statuses the operation itself declared: Huma
// appends 422 (with path parameters or a body) then 500 to declared errors.
func declares422(op *huma.Operation, humaAdds422 bool) bool {
	errs := op.Errors
	if n := len(errs); n > 0 && errs[n-1] == http.StatusInternalServerError {
		errs = errs[:n-1]
		if n := len(errs); humaAdds422 && n > 0 && errs[n-1] == http.StatusUnprocessableEntity {
			errs = errs[:n-1]
		}
	}
	return slices.Contains(errs, http.StatusUnprocessableEntity)
}

// describeError gives an error response its description, the error body with an example, and
// Retry-After on 503. A response already documented without a body (413 of archive
// submission) keeps having none.
func describeError(r *huma.Response, status int, isDefault bool) {
	if r.Content == nil && r.Description != "" {
		return
	}
	info := errorStatuses[status]
	if isDefault {
		info = struct{ code, when string }{CodeNotFound, "any other error (404 NOT_FOUND on an unknown path, 405 METHOD_NOT_ALLOWED on a known path with another method), with the same body"}
	}
	if r.Description == "" || r.Description == http.StatusText(status) {
		r.Description = info.when
	}
	if r.Content == nil {
		r.Content = map[string]*huma.MediaType{}
	}
	mt := r.Content["application/json"]
	if mt == nil {
		mt = &huma.MediaType{}
		r.Content["application/json"] = mt
	}
	mt.Schema = &huma.Schema{Ref: "#/components/schemas/APIError"}
	if mt.Example == nil && mt.Examples == nil {
		mt.Example = map[string]any{"errorCode": info.code, "errorDescription": info.when}
	}
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		if r.Headers == nil {
			r.Headers = map[string]*huma.Param{}
		}
		r.Headers["Retry-After"] = &huma.Param{
			Description: "Seconds to wait before retrying",
			Schema:      &huma.Schema{Type: "integer", Examples: []any{5}},
		}
	}
}
