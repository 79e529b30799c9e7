package apidocs

import (
	"context"
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

// The recommendation API reads its job body raw, yet the same check refuses an ambiguous one,
// sent as JSON or with no Content-Type (which Huma reads as JSON), and a body of another type is
// refused for that; no job is stored.
func TestAmbiguousAdviceBodiesAreRefused(t *testing.T) {
	_, adv := newAdviceHarness(t)
	token := adv.token("acme", "advices")
	post := func(contentType, body string) (int, []byte, http.Header) {
		return adv.send(http.MethodPost, "/v1/jobs/advices", "Bearer "+token, contentType, body)
	}
	for _, c := range []struct {
		body, field, problem string
	}{
		{`[{"input": {"HOUSING_TYPE": "HOUSE", "HOUSING_TYPE": "APARTMENT"}}]`, "[0].input.HOUSING_TYPE", "given twice in one object"},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}, "input": {"HOUSING_TYPE": "HOUSE"}}]`, "[0].input", "given twice in one object"},
		{`[{"input": {"HOUSING_SURFACE": 80}}, {"input": {"HOUSING_OCCUPANTS": 1, "X": {"a": 1, "a": 2}}}]`, "[1].input.X.a", "given twice in one object"},
		{`[{"input": {"HOUSING_TYPE": "HOUSE", "SITE_ID": "a\u0000b"}}]`, "[0].input.SITE_ID", `contains a NUL character (\u0000)`},
	} {
		for _, contentType := range []string{"application/json", ""} {
			st, b, hdr := post(contentType, c.body)
			adv.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field "+c.field+": "+c.problem)
		}
	}
	st, b, hdr := post("text/plain", `[{"input": {"HOUSING_TYPE": "HOUSE"}}]`)
	adv.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, `Content-Type "text/plain" is not supported`)
	var n uint64
	if err := adv.db.Conn.QueryRow(context.Background(), "SELECT count() FROM advice_jobs").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d jobs stored after refused bodies (%v), want 0", n, err)
	}
}
