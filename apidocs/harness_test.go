package apidocs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"energy/query/targets"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// harness is a main service on a throwaway database, reached over real HTTP.
type harness struct {
	t     *testing.T
	db    *schema.DB
	reg   *registry.Store
	srv   *httptest.Server
	admin string // secret of an admin token of tenant "acme"
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, nil)
}

// newHarnessWith is newHarness with its configuration changed by configure (nil: unchanged).
func newHarnessWith(t *testing.T, configure func(*Config)) *harness {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	cfg := Config{Registry: reg, Ready: db.Ping, Targets: targets.NewStore(db), Outbox: targets.NewOutbox(db)}
	if configure != nil {
		configure(&cfg)
	}
	h, _ := NewMain(cfg)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hs := &harness{t: t, db: db, reg: reg, srv: srv}
	hs.admin = hs.token("acme", "admin")
	return hs
}

// token creates a token of tenant with the comma-separated scopes and returns its secret.
func (h *harness) token(tenant, scopes string) string {
	h.t.Helper()
	secret, _, err := h.reg.CreateToken(context.Background(), tenant, strings.Split(scopes, ","), 0, "test")
	if err != nil {
		h.t.Fatal(err)
	}
	return secret
}

// do sends a request with an optional bearer token and JSON body; it returns status and body.
func (h *harness) do(method, path, token, body string) (int, []byte, http.Header) {
	h.t.Helper()
	authorization := ""
	if token != "" {
		authorization = "Bearer " + token
	}
	return h.doAuth(method, path, authorization, body)
}

// wantError checks status, errorCode and that the description mentions each of mentions.
func (h *harness) wantError(status int, body []byte, hdr http.Header, wantStatus int, wantCode string, mentions ...string) {
	h.t.Helper()
	if status != wantStatus {
		h.t.Fatalf("status %d, want %d; body %s", status, wantStatus, body)
	}
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		h.t.Errorf("error Content-Type %q, want application/json", ct)
	}
	var e struct {
		ErrorCode        string `json:"errorCode"`
		ErrorDescription string `json:"errorDescription"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		h.t.Fatalf("error body %s is not the error model: %v", body, err)
	}
	if e.ErrorCode != wantCode {
		h.t.Fatalf("errorCode %q, want %q (%s)", e.ErrorCode, wantCode, e.ErrorDescription)
	}
	if e.ErrorDescription == "" {
		h.t.Fatal("empty errorDescription")
	}
	for _, m := range mentions {
		if !strings.Contains(e.ErrorDescription, m) {
			h.t.Errorf("errorDescription %q does not mention %q", e.ErrorDescription, m)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// doAuth is do with a raw Authorization header value (empty: none).
func (h *harness) doAuth(method, path, authorization, body string) (int, []byte, http.Header) {
	h.t.Helper()
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	return h.send(method, path, authorization, contentType, body)
}

// send is doAuth with the body's Content-Type (empty: none).
func (h *harness) send(method, path, authorization, contentType, body string) (int, []byte, http.Header) {
	h.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, r)
	if err != nil {
		h.t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(h.t, resp), resp.Header
}
