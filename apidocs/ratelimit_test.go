package apidocs

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"energy/schema/registry"
)

// A token's burst over its limit gets 429 RATE_LIMITED with Retry-After, another token of
// the same tenant is unaffected, health endpoints never count, per-scope overrides apply, and
// the refusals are counted per tenant on /metrics.
func TestRateLimitPerToken(t *testing.T) {
	h := newHarnessWith(t, func(c *Config) {
		c.RateLimiter = NewRateLimiter(RateLimits{
			Default: RateLimit{PerSecond: 0.01, Burst: 3},
			ByScope: map[registry.Scope]RateLimit{registry.ScopeAdvices: {PerSecond: 0.01, Burst: 6}},
		})
	})
	reader := h.token("ratelimited", "read")
	other := h.token("ratelimited", "read")
	generous := h.token("ratelimited", "read,advices")
	before := refusedOf(t, h, "ratelimited")

	for i := range 3 {
		if st, body, _ := h.do(http.MethodGet, "/v2/sites/NOPE", reader, ""); st != http.StatusNotFound {
			t.Fatalf("request %d within the burst: status %d (%s), want 404", i+1, st, body)
		}
	}
	st, body, hdr := h.do(http.MethodGet, "/v2/sites/NOPE", reader, "")
	h.wantError(st, body, hdr, http.StatusTooManyRequests, CodeRateLimited, "retry in")
	ra, err := strconv.Atoi(hdr.Get("Retry-After"))
	// One request every 100 s: the next one is about 100 s away.
	if err != nil || ra < 90 || ra > 101 {
		t.Fatalf("Retry-After %q, want about 100 seconds", hdr.Get("Retry-After"))
	}

	if st, body, _ := h.do(http.MethodGet, "/v2/sites/NOPE", other, ""); st != http.StatusNotFound {
		t.Fatalf("another token of the tenant: status %d (%s), want 404", st, body)
	}
	for range 5 {
		if st, _, _ := h.do(http.MethodGet, "/healthz", reader, ""); st != http.StatusOK {
			t.Fatalf("/healthz of a limited token: status %d, want 200", st)
		}
		if st, _, _ := h.do(http.MethodGet, "/readyz", "", ""); st != http.StatusOK {
			t.Fatalf("/readyz: status %d, want 200", st)
		}
	}
	// The advices override (burst 6) wins over the default for a token holding that scope.
	for i := range 6 {
		if st, body, _ := h.do(http.MethodGet, "/v2/sites/NOPE", generous, ""); st != http.StatusNotFound {
			t.Fatalf("request %d of the overridden scope: status %d (%s), want 404", i+1, st, body)
		}
	}
	if st, _, _ := h.do(http.MethodGet, "/v2/sites/NOPE", generous, ""); st != http.StatusTooManyRequests {
		t.Fatalf("7th request of the overridden scope: status %d, want 429", st)
	}
	if got := refusedOf(t, h, "ratelimited") - before; got != 2 {
		t.Fatalf("energy_rate_limited_requests_total{tenant=\"ratelimited\"} grew by %v, want 2", got)
	}
}

func refusedOf(t *testing.T, h *harness, tenant string) float64 {
	t.Helper()
	st, body, _ := h.do(http.MethodGet, "/metrics", "", "")
	if st != http.StatusOK {
		t.Fatalf("/metrics: status %d", st)
	}
	m := regexp.MustCompile(`(?m)^energy_rate_limited_requests_total\{tenant="` + tenant + `"\} (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseRateLimits(t *testing.T) {
	if l, err := ParseRateLimit("20:40"); err != nil || l != (RateLimit{PerSecond: 20, Burst: 40}) {
		t.Fatalf("20:40 → %v, %v", l, err)
	}
	if l, err := ParseRateLimit("off"); err != nil || l.PerSecond != 0 {
		t.Fatalf("off → %v, %v", l, err)
	}
	for _, bad := range []string{"20", "0:5", "-1:5", "5:0", "x:y", "Inf:3"} {
		if _, err := ParseRateLimit(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	m, err := ParseScopeRateLimits("collect=5:10, admin=off")
	if err != nil || m[registry.ScopeCollect] != (RateLimit{PerSecond: 5, Burst: 10}) || m[registry.ScopeAdmin].PerSecond != 0 || len(m) != 2 {
		t.Fatalf("overrides %v, %v", m, err)
	}
	if _, err := ParseScopeRateLimits("root=5:10"); err == nil {
		t.Error("unknown scope accepted")
	}
}
