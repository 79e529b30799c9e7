package apidocs

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
)

// Each error class (apidocs/README.md, "Errors") answers its status, its errorCode and a description
// that names what is wrong, as application/json, with an X-Request-Id.

func TestValidationIs400NamingTheField(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, method, path, body string
		mentions                 []string
	}{
		{"wrong JSON type", "PUT", "/v2/sites/S1", `{"timezone": 5}`, []string{"timezone"}},
		{"value outside enum", "PUT", "/v2/sites/S1", `{"heatingFluid": "COAL"}`, []string{"heatingFluid"}},
		{"unknown JSON field", "PUT", "/v1/weather-stations/W1", `{"name":"x","latitude":1,"longitude":2,"altitude":3}`, []string{"altitude"}},
		{"out of range", "PUT", "/v1/weather-stations/W1", `{"name":"x","latitude":91,"longitude":2}`, []string{"latitude"}},
		{"malformed JSON", "PUT", "/v2/sites/S1", `{"timezone": `, []string{"body"}},
		{"bad path id", "PUT", "/v2/sites/bad%20id", `{}`, []string{"siteId"}},
		{"path and body ids differ", "PUT", "/v2/sites/S1", `{"siteId":"S2"}`, []string{"siteId", "S2"}},
		{"registry field error", "PUT", "/v2/tariffs/T1", `{"option":"BASE","dialHeadings":{"1":"BASE"},"prices":[{"validFrom":"2024-02-30","byHeading":{"BASE":0.25}}]}`, []string{"prices[0].validFrom", "2024-02-30"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, b, hdr := h.do(c.method, c.path, h.admin, c.body)
			h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, c.mentions...)
		})
	}
}

// testOps registers operations that exist only to provoke error classes the real ones cannot
// reach on demand: a query parameter with bounds and a handler that panics.
func testOps(api huma.API) {
	huma.Register(api, huma.Operation{OperationID: "test-bounded", Method: http.MethodGet, Path: "/test/bounded", Security: requireScopes(registry.ScopeRead)}, boundedOp)
	huma.Register(api, huma.Operation{OperationID: "test-panic", Method: http.MethodGet, Path: "/test/panic"}, panickingOp)
}

type boundedInput struct {
	Size int `query:"size" minimum:"1" maximum:"100"`
}

// boundedOp answers nothing: Huma refuses an out-of-range size before it is called.
func boundedOp(context.Context, *boundedInput) (*struct{}, error) { return nil, nil }

func panickingOp(context.Context, *struct{}) (*struct{}, error) {
	panic("deliberate test panic with secret detail")
}

func newTestOpsServer(t *testing.T, h *harness) *httptest.Server {
	t.Helper()
	handler, api := NewMain(Config{Registry: h.reg, Ready: h.db.Ping})
	testOps(api)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv
}

func TestQueryParameterOutOfRangeIs400NamingIt(t *testing.T) {
	h := newHarness(t)
	h.srv = newTestOpsServer(t, h)
	st, b, hdr := h.do("GET", "/test/bounded?size=101", h.admin, "")
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "query parameter size", "101")
	st, b, hdr = h.do("GET", "/test/bounded?size=abc", h.admin, "")
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "size")
	if st, b, _ = h.do("GET", "/test/bounded?size=5", h.admin, ""); st != http.StatusNoContent && st != http.StatusOK {
		t.Fatalf("valid size: %d %s", st, b)
	}
}

func TestUnknownRouteIs404AndWrongMethod405WhateverTheToken(t *testing.T) {
	h := newHarness(t)
	for _, tok := range []string{"", "garbage", h.admin} {
		st, b, hdr := h.do("GET", "/v2/nowhere", tok, "")
		h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "/v2/nowhere")
		st, b, hdr = h.do("DELETE", "/v2/tariffs/T1", tok, "")
		h.wantError(st, b, hdr, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "DELETE", "/v2/tariffs/T1")
		if allow := hdr.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "PUT") {
			t.Errorf("405 Allow header %q, want GET and PUT", allow)
		}
	}
}

// A path with control bytes or invalid UTF-8 still gets a JSON error body (Go's %q quoting
// would write \xNN escapes, which JSON parsers reject).
func TestRoutingErrorBodyIsJSONWhateverThePath(t *testing.T) {
	h := newHarness(t)
	st, b, hdr := h.do("GET", "/v2/nowhere%01%ff", "", "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "/v2/nowhere")
	st, b, hdr = h.do("DELETE", "/v2/tariffs/T%01%ff", "", "")
	h.wantError(st, b, hdr, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "DELETE")
}

// A body Huma cannot read (not JSON) is a malformed body value: 400 INVALID_PARAMETER, the
// contract has no 415.
func TestBodyOfUnsupportedContentTypeIs400(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest("PUT", h.srv.URL+"/v2/sites/S1", strings.NewReader(`{"timezone":"Europe/Paris"}`))
	req.Header.Set("Authorization", "Bearer "+h.admin)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	h.wantError(resp.StatusCode, readAll(t, resp), resp.Header, http.StatusBadRequest, CodeInvalidParameter, "Content-Type", "application/json")
}

// Descriptions of missing and unknown body fields name the field, without dumping the
// enclosing object.
func TestMissingAndUnknownBodyFieldsNamedPlainly(t *testing.T) {
	h := newHarness(t)
	st, b, hdr := h.do("PUT", "/v1/weather-stations/W1", h.admin, `{"name":"x","longitude":2}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field latitude: is required")
	st, b, hdr = h.do("PUT", "/v1/weather-stations/W1", h.admin, `{"name":"x","latitude":1,"longitude":2,"altitude":3}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "body field altitude: unexpected property")
	if strings.Contains(string(b), "map[") {
		t.Errorf("description dumps a Go map: %s", b)
	}
}

func TestPanicIs500CarryingTheRequestID(t *testing.T) {
	h := newHarness(t)
	h.srv = newTestOpsServer(t, h)
	req, _ := http.NewRequest("GET", h.srv.URL+"/test/panic", nil)
	req.Header.Set("X-Request-Id", "req-panic-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := readAll(t, resp)
	h.wantError(resp.StatusCode, b, resp.Header, http.StatusInternalServerError, CodeInternal, "req-panic-42")
	if strings.Contains(string(b), "secret detail") || strings.Contains(string(b), "goroutine") {
		t.Fatalf("500 body leaks the panic: %s", b)
	}
	// Without a client id, the generated one is in both the header and the description.
	st, b, hdr := h.do("GET", "/test/panic", "", "")
	id := hdr.Get("X-Request-Id")
	h.wantError(st, b, hdr, http.StatusInternalServerError, CodeInternal, id)
}

func TestRequestIDEchoedOrGenerated(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest("GET", h.srv.URL+"/healthz", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-Id"); got != "abc-123" {
		t.Fatalf("echoed X-Request-Id %q, want abc-123", got)
	}
	seen := map[string]bool{}
	for _, path := range []string{"/healthz", "/v2/nowhere", "/v2/sites/S1"} { // 200, 404, 401
		_, _, hdr := h.do("GET", path, "", "")
		id := hdr.Get("X-Request-Id")
		if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(id) || seen[id] {
			t.Fatalf("%s: generated X-Request-Id %q is not a fresh 24-hex-digit id", path, id)
		}
		seen[id] = true
	}
	// An unreasonable id (too long, or with spaces and quotes) is replaced, not echoed.
	for _, bad := range []string{strings.Repeat("x", 200), `a "quoted" id`} {
		req, _ = http.NewRequest("GET", h.srv.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", bad)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Request-Id"); len(got) != 24 {
			t.Fatalf("X-Request-Id %q was echoed as %q, want a generated one", bad, got)
		}
	}
}

// /readyz names the condition, not the driver's message (internal addresses stay in the log).
func TestNotReadyIs503WithoutInternalDetail(t *testing.T) {
	h := newHarness(t)
	handler, _ := NewMain(Config{Registry: h.reg, Ready: func(context.Context) error {
		return errors.New("ping: dial tcp 10.1.2.3:9000: connection refused")
	}})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	h.srv = srv
	st, b, hdr := h.do("GET", "/readyz", "", "")
	h.wantError(st, b, hdr, http.StatusServiceUnavailable, CodeStorageUnavailable, "not ready")
	if strings.Contains(string(b), "10.1.2.3") {
		t.Fatalf("readyz leaks the driver's message: %s", b)
	}
	if hdr.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
}

// TestStorageDownIs503WithRetryAfter runs the service on its own ClickHouse, stops that server
// and checks that authenticated endpoints and /readyz answer 503 STORAGE_UNAVAILABLE.
func TestStorageDownIs503WithRetryAfter(t *testing.T) {
	h := newHarness(t) // makes sure a ClickHouse binary is there (fails under CI otherwise)
	_ = h
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := server.StartLocal(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db, err := schema.Open(ctx, srv.DSN("energy"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	reg := registry.New(db)
	cachedSecret, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	freshSecret, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	handler, _ := NewMain(Config{Registry: reg, Ready: db.Ping})
	hs := httptest.NewServer(handler)
	defer hs.Close()
	down := &harness{t: t, srv: hs}
	if st, b, _ := down.do("GET", "/v2/sites/S1", cachedSecret, ""); st != http.StatusOK {
		t.Fatalf("site before the outage: %d %s", st, b)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	// The token is still trusted from the auth cache: the site query itself fails.
	st, b, hdr := down.do("GET", "/v2/sites/S1", cachedSecret, "")
	down.wantError(st, b, hdr, http.StatusServiceUnavailable, CodeStorageUnavailable)
	if ra := hdr.Get("Retry-After"); ra == "" {
		t.Error("503 without Retry-After")
	}
	// A token never seen before cannot be checked: 503 too, not 401.
	st, b, hdr = down.do("PUT", "/v2/sites/S2", freshSecret, `{}`)
	down.wantError(st, b, hdr, http.StatusServiceUnavailable, CodeStorageUnavailable)
	if hdr.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	st, b, hdr = down.do("GET", "/readyz", "", "")
	down.wantError(st, b, hdr, http.StatusServiceUnavailable, CodeStorageUnavailable)
	if hdr.Get("Retry-After") == "" {
		t.Error("/readyz 503 without Retry-After")
	}
	if st, _, _ := down.do("GET", "/healthz", "", ""); st != http.StatusOK {
		t.Errorf("/healthz answers %d while storage is down, want 200 (the process is alive)", st)
	}
}
