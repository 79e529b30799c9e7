package apidocs

import (
	"net/http"
	"testing"
)

func TestRoutingAndAuthErrors(t *testing.T) {
	h := newHarness(t)
	reader := h.token("acme", "read")
	other := h.token("globex", "admin")

	st, b, hdr := h.do("GET", "/v2/nowhere", h.admin, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "/v2/nowhere")
	st, b, hdr = h.do("PATCH", "/v2/sites/S1", "", "")
	h.wantError(st, b, hdr, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "PATCH")
	st, b, hdr = h.do("PUT", "/v2/sites/S1", "", `{}`)
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
	st, b, hdr = h.do("PUT", "/v2/sites/S1", "etk_0000000000000000_nope", `{}`)
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
	st, b, hdr = h.do("PUT", "/v2/sites/S1", reader, `{}`)
	h.wantError(st, b, hdr, http.StatusForbidden, CodeAccessDenied, "admin")

	if st, b, _ = h.do("PUT", "/v2/sites/S1", h.admin, `{"timezone":"Europe/Paris"}`); st != http.StatusOK {
		t.Fatalf("PUT site: %d %s", st, b)
	}
	st, b, hdr = h.do("GET", "/v2/sites/S1", other, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "S1")
	st, b, hdr = h.do("PUT", "/v2/sites/S2", h.admin, `{"timezone":"Mars/Olympus"}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "timezone")
	st, b, hdr = h.do("PUT", "/v2/sites/S2", h.admin, `{"colour":"red"}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "colour")
	if hdr.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id on an error response")
	}
}
