package apidocs

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// csvType is the media type of list answers served as CSV (Accept: text/csv).
const csvType = "text/csv"

// csvList is an answer whose items make the rows of its CSV: JobPage's jobs. An answer that is
// itself a slice (the weather) is its own list.
type csvList interface {
	csvItems() any
}

// csvFormat marshals list answers as CSV for Huma's content negotiation; only the operations
// documenting text/csv reach it (negotiateCSV).
var csvFormat = huma.Format{
	Marshal: func(w io.Writer, v any) error {
		if l, ok := v.(csvList); ok {
			return writeCSVTable(w, l.csvItems())
		}
		if reflect.ValueOf(v).Kind() == reflect.Slice {
			return writeCSVTable(w, v)
		}
		return errors.New("this answer is not a list of items: it has no CSV form")
	},
	Unmarshal: func([]byte, any) error {
		return BadParam("request bodies are JSON: Content-Type %s is not accepted", csvType)
	},
}

// withCSVFormat adds text/csv to the formats Huma negotiates (the default JSON stays first, so
// a request without Accept gets JSON).
func withCSVFormat(hc *huma.Config) {
	hc.Formats = maps.Clone(hc.Formats)
	hc.Formats[csvType] = csvFormat
}

// csvDescription is what every text/csv answer says of its form.
const csvDescription = "With `Accept: text/csv`: RFC 4180 CSV (CRLF line ends, quoted when needed), a header row, then one row per item. " +
	"Nested objects become columns named after their path joined by `_`; maps become one column per key (for example `energy_HC`, `cost_HP`); " +
	"timestamps carry their UTC offset, numbers a decimal point, absent values are empty cells and lists are joined by `;`. Errors stay JSON."

// documentCSV declares the text/csv form of a registered GET operation's 200 answer: columns
// names what the rows hold.
func documentCSV(api huma.API, path, columns string) {
	item := api.OpenAPI().Paths[path]
	if item == nil || item.Get == nil || item.Get.Responses["200"] == nil {
		panic("documentCSV: no GET " + path + " with a 200 answer is registered")
	}
	item.Get.Responses["200"].Content[csvType] = &huma.MediaType{
		Schema: &huma.Schema{Type: "string", Description: csvDescription + " " + columns},
	}
}

// servesCSV tells whether the operation documents a text/csv answer.
func servesCSV(op *huma.Operation) bool {
	r := op.Responses["200"]
	return r != nil && r.Content[csvType] != nil
}

// wantsCSVKey marks, in a request's context, that the answer is to be CSV.
type wantsCSVKey struct{}

// wantsCSV tells a handler that writes its own bytes (the cached consumption) to answer CSV.
func wantsCSV(ctx context.Context) bool {
	b, _ := ctx.Value(wantsCSVKey{}).(bool)
	return b
}

// negotiateCSV honours Accept: text/csv on the operations documenting it and marks their
// context; elsewhere such a request is answered JSON as if it had not asked for CSV.
func negotiateCSV(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		accept := ctx.Header("Accept")
		if ct, err := api.Negotiate(accept); err != nil || ct != csvType {
			next(ctx)
			return
		}
		if servesCSV(ctx.Operation()) {
			next(huma.WithValue(ctx, wantsCSVKey{}, true))
			return
		}
		next(jsonAccepted{ctx})
	}
}

// jsonAccepted is a request context whose Accept header asks for JSON.
type jsonAccepted struct{ humaContext }

// humaContext names the embedded huma.Context so that its Context method is promoted.
type humaContext = huma.Context

// Unwrap lets humachi.Unwrap reach the request beneath.
func (c jsonAccepted) Unwrap() huma.Context { return c.humaContext }

func (c jsonAccepted) Header(name string) string {
	if http.CanonicalHeaderKey(name) == "Accept" {
		return "application/json"
	}
	return c.humaContext.Header(name)
}

// ContentType keeps every error JSON, whatever format the request negotiated
// (huma.ContentTypeFilter).
func (e *APIError) ContentType(string) string { return "application/json" }
