package apidocs

import (
	"net/http"
	"testing"
)

func TestAmbiguity(t *testing.T) {
	for _, c := range []struct{ body, field, problem string }{
		{`{"name": "a", "name": "b"}`, "name", "given twice in one object"},
		{`{"contact": {"email": "a@x.org", "phone": "+33", "email": "b@x.org"}}`, "contact.email", "given twice in one object"},
		{`{"prices": [{"byHeading": {"HP": 1}}, {"byHeading": {"HC": 1, "HC": 2}}]}`, "prices[1].byHeading.HC", "given twice in one object"},
		{`[{"date": "x", "temperature": 1}, {"date": "y", "picto": "P\u0000"}]`, "[1].picto", `contains a NUL character (\u0000)`},
		{`{"a\u0000b": 1}`, "a\x00b", `the member name contains a NUL character (\u0000)`},
		{`{"name": "Paris\u0000Orly"}`, "name", `contains a NUL character (\u0000)`},
		{`{"timeOfUse": [["x", "y\u0000"]]}`, "timeOfUse[0][1]", `contains a NUL character (\u0000)`},
		// Same name in sibling objects, escapes that are not NUL, and broken JSON are not this check's business.
		{`{"a": {"x": 1}, "b": {"x": 1}, "s": "\u0001\\u0000"}`, "", ""},
		{`[{"date": 1}, {"date": 2}]`, "", ""},
		{`{"a": 1,`, "", ""},
	} {
		field, problem := ambiguity([]byte(c.body))
		if field != c.field || problem != c.problem {
			t.Errorf("%s: got %q %q, want %q %q", c.body, field, problem, c.field, c.problem)
		}
	}
}

// Through the API: a duplicated member or a NUL character is a 400 naming the field, and
// nothing is stored.
func TestAmbiguousJSONBodiesAreRefused(t *testing.T) {
	h := newHarness(t)
	st, b, hdr := h.do("PUT", "/v2/sites/DUP", h.admin, `{"timezone": "Europe/Paris", "heatingFluid": "GAS", "heatingFluid": "NONE"}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field heatingFluid", "twice")
	st, b, hdr = h.do("PUT", "/v1/weather-stations/NUL", h.admin, `{"name": "Paris\u0000Orly", "latitude": 48.72, "longitude": 2.38}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field name", "NUL")
	st, b, hdr = h.do("PUT", "/v2/sites/NUL2", h.admin, `{"contact": {"email": "a@example.org", "email": "b@example.org"}}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field contact.email")
	for _, path := range []string{"/v2/sites/DUP", "/v2/sites/NUL2", "/v1/weather-stations/NUL"} {
		if st, b, _ := h.do("GET", path, h.admin, ""); st != http.StatusNotFound {
			t.Errorf("GET %s after a refused PUT: %d %s, want 404", path, st, b)
		}
	}
	// The same bodies without the ambiguity are accepted.
	if st, b, _ := h.do("PUT", "/v2/sites/DUP", h.admin, `{"timezone": "Europe/Paris", "heatingFluid": "NONE"}`); st != http.StatusOK {
		t.Fatalf("PUT a plain site: %d %s", st, b)
	}
}

// Routing and authentication come first: the check never turns a 404 or a 401 into a 400.
func TestAmbiguousJSONAfterRoutingAndAuth(t *testing.T) {
	h := newHarness(t)
	dup := `{"name": "a", "name": "b"}`
	st, b, hdr := h.do("PUT", "/v1/weather-stations/X", "", dup)
	h.wantError(st, b, hdr, http.StatusUnauthorized, "INVALID_AUTHORIZATION_HEADER_VALUE")
	st, b, hdr = h.do("PUT", "/v9/nowhere", h.admin, dup)
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound)
}
