package apidocs

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"golang.org/x/time/rate"

	"energy/schema/registry"
)

var rateLimited = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "energy_rate_limited_requests_total",
	Help: "Requests refused with 429 RATE_LIMITED, by tenant of the token.",
}, []string{"tenant"})

// RateLimit is a token bucket: PerSecond requests a second on average, Burst at once.
// PerSecond 0 means unlimited.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

func (l RateLimit) String() string {
	if l.PerSecond == 0 {
		return "off"
	}
	return strconv.FormatFloat(l.PerSecond, 'f', -1, 64) + ":" + strconv.Itoa(l.Burst)
}

// ParseRateLimit reads "RATE:BURST" (requests per second, requests at once; "20:40") or "off".
func ParseRateLimit(s string) (RateLimit, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "0" {
		return RateLimit{}, nil
	}
	r, b, ok := strings.Cut(s, ":")
	perSecond, err1 := strconv.ParseFloat(r, 64)
	burst, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || !(perSecond > 0) || math.IsInf(perSecond, 0) || burst < 1 {
		return RateLimit{}, fmt.Errorf("%q is not RATE:BURST (requests per second > 0, burst ≥ 1; for example 20:40) or off", s)
	}
	return RateLimit{PerSecond: perSecond, Burst: burst}, nil
}

// UnmarshalText reads a flag's value (ParseRateLimit).
func (l *RateLimit) UnmarshalText(b []byte) error {
	v, err := ParseRateLimit(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ScopeRateLimits are per-scope overrides of the default rate limit.
type ScopeRateLimits map[registry.Scope]RateLimit

// UnmarshalText reads a flag's value (ParseScopeRateLimits).
func (m *ScopeRateLimits) UnmarshalText(b []byte) error {
	v, err := ParseScopeRateLimits(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseScopeRateLimits reads per-scope overrides "SCOPE=RATE:BURST,…" ("collect=5:10,admin=off").
func ParseScopeRateLimits(s string) (ScopeRateLimits, error) {
	out := ScopeRateLimits{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		scope, limit, ok := strings.Cut(part, "=")
		if !ok || !registry.ValidScope(scope) {
			return nil, fmt.Errorf("%q is not SCOPE=RATE:BURST with a scope among collect, read, targets, advices, admin", part)
		}
		l, err := ParseRateLimit(limit)
		if err != nil {
			return nil, fmt.Errorf("scope %s: %w", scope, err)
		}
		out[registry.Scope(scope)] = l
	}
	return out, nil
}

// RateLimits are the buckets' sizes: Default for every token, ByScope for tokens holding
// one of these scopes (the most generous of the token's scopes wins).
type RateLimits struct {
	Default RateLimit
	ByScope ScopeRateLimits
}

// of is the limit of a token with these scopes.
func (l RateLimits) of(scopes []string) RateLimit {
	var best RateLimit
	found := false
	for _, s := range scopes {
		o, ok := l.ByScope[registry.Scope(s)]
		if !ok {
			continue
		}
		if !found || o.PerSecond == 0 || (best.PerSecond != 0 && o.PerSecond > best.PerSecond) {
			best = o
		}
		found = true
	}
	if !found {
		return l.Default
	}
	return best
}

// RateLimiter holds one token bucket per API token, shared by both listeners.
type RateLimiter struct {
	limits  RateLimits
	mu      sync.Mutex
	buckets map[string]*rate.Limiter // by token id
}

// NewRateLimiter returns the limiter of limits.
func NewRateLimiter(limits RateLimits) *RateLimiter {
	return &RateLimiter{limits: limits, buckets: map[string]*rate.Limiter{}}
}

// maxBuckets bounds the buckets kept; beyond it the full ones (idle tokens) are dropped,
// which changes nothing for them: a new bucket starts full.
const maxBuckets = 10000

// admit takes one request from tok's bucket, or says how long until one is there.
func (l *RateLimiter) admit(tok registry.Token, now time.Time) (bool, time.Duration) {
	limit := l.limits.of(tok.Scopes)
	if limit.PerSecond == 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[tok.TokenID]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			for id, old := range l.buckets {
				if old.TokensAt(now) >= float64(old.Burst()) {
					delete(l.buckets, id)
				}
			}
		}
		b = rate.NewLimiter(rate.Limit(limit.PerSecond), limit.Burst)
		l.buckets[tok.TokenID] = b
	}
	if b.AllowN(now, 1) {
		return true, 0
	}
	r := b.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	return false, wait
}

// limitRate refuses, with 429 RATE_LIMITED and Retry-After, a request whose token has
// emptied its bucket. It runs after authenticate: operations without security (/healthz,
// /readyz, the OpenAPI document) carry no token and are never limited; /metrics and /docs
// are served outside Huma.
func limitRate(api huma.API, l *RateLimiter) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		tok := Caller(ctx.Context())
		if l == nil || tok.TokenID == "" {
			next(ctx)
			return
		}
		ok, wait := l.admit(tok, time.Now())
		if ok {
			next(ctx)
			return
		}
		rateLimited.WithLabelValues(tok.TenantID).Inc()
		seconds := strconv.Itoa(max(1, int(math.Ceil(wait.Seconds()))))
		e := Fail(http.StatusTooManyRequests, CodeRateLimited, "token %s sent more requests than its limit of %s requests per second (burst %d); retry in %s seconds",
			tok.TokenID, strconv.FormatFloat(l.limits.of(tok.Scopes).PerSecond, 'f', -1, 64), l.limits.of(tok.Scopes).Burst, seconds)
		e.headers = http.Header{"Retry-After": {seconds}}
		_ = huma.WriteErr(api, ctx, http.StatusTooManyRequests, "", e)
	}
}
