package apidocs

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAuthMatrixOnAdminEndpoint walks the auth rules (apidocs/README.md, "Authentication and tenancy") on PUT
// /v2/sites/{siteId}: 401 for every bad header or token, 403 for a missing scope, 404 for
// another tenant's site, and success for a valid token whatever the case of "Bearer".
func TestAuthMatrixOnAdminEndpoint(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	const path, body = "/v2/sites/S1", `{"timezone":"Europe/Paris"}`

	revoked := h.token("acme", "admin")
	if st, b, _ := h.do("PUT", path, revoked, body); st != http.StatusOK {
		t.Fatalf("token before revocation: %d %s", st, b)
	}
	id := strings.Split(strings.TrimPrefix(revoked, "etk_"), "_")[0]
	if _, err := h.reg.RevokeToken(ctx, id); err != nil {
		t.Fatal(err)
	}
	// DateTime holds whole seconds: a 1 ns lifetime has ended by the time the row is stored.
	expired, _, err := h.reg.CreateToken(ctx, "acme", []string{"admin"}, time.Nanosecond, "expired")
	if err != nil {
		t.Fatal(err)
	}
	tampered := h.admin[:len(h.admin)-4] + "AAAA"
	if tampered == h.admin {
		tampered = h.admin[:len(h.admin)-4] + "BBBB"
	}

	unauthorized := []struct{ name, header string }{
		{"missing header", ""},
		{"not Bearer: Basic", "Basic YWRtaW46YWRtaW4="},
		{"not Bearer: Token", "Token " + h.admin},
		{"secret without scheme", h.admin},
		{"Bearer without token", "Bearer"},
		{"Bearer with blank token", "Bearer   "},
		{"two words after Bearer", "Bearer " + h.admin + " extra"},
		{"unknown token", "Bearer etk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"garbage token", "Bearer hello"},
		{"right id, wrong secret", "Bearer " + tampered},
		{"revoked token", "Bearer " + revoked},
		{"expired token", "Bearer " + expired},
	}
	for _, c := range unauthorized {
		t.Run(c.name, func(t *testing.T) {
			st, b, hdr := h.doAuth("PUT", path, c.header, body)
			h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
			if hdr.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	// A bad token is 401 before the body is even looked at.
	st, b, hdr := h.doAuth("PUT", path, "Bearer hello", `{"timezone": 5`)
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)

	for _, scopes := range []string{"read", "collect,targets,advices"} {
		st, b, hdr := h.do("PUT", path, h.token("acme", scopes), body)
		h.wantError(st, b, hdr, http.StatusForbidden, CodeAccessDenied, "admin")
	}

	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		if st, b, _ := h.doAuth("PUT", path, scheme+" "+h.admin, body); st != http.StatusOK {
			t.Errorf("scheme %q: %d %s, want 200", scheme, st, b)
		}
	}

	// Another tenant's site does not exist for globex, even with admin; its own PUT of the same
	// id makes a separate site and leaves acme's untouched.
	globex := h.token("globex", "admin")
	st, b, hdr = h.do("GET", path, globex, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "S1")
	if st, b, _ := h.do("PUT", path, globex, `{"timezone":"America/New_York"}`); st != http.StatusOK {
		t.Fatalf("globex PUT: %d %s", st, b)
	}
	st, b, _ = h.do("GET", path, h.token("acme", "read"), "")
	var s SiteBody
	if st != http.StatusOK || json.Unmarshal(b, &s) != nil || s.Timezone != "Europe/Paris" {
		t.Fatalf("acme's site after globex's PUT: %d %s", st, b)
	}
}

// TestPublicEndpointsNeedNoToken checks the endpoints open without a token (apidocs/README.md, "Authentication and tenancy").
func TestPublicEndpointsNeedNoToken(t *testing.T) {
	h := newHarness(t)
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/openapi.json", "/openapi.yaml", "/docs"} {
		if st, b, _ := h.do("GET", p, "", ""); st != http.StatusOK {
			t.Errorf("GET %s without a token: %d %.200s", p, st, b)
		}
	}
}
