package apidocs

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Startup serves a listener from the moment the process starts, before the store is
// reachable and migrated: /healthz answers 200 (the process works: an orchestrator must not
// kill it for waiting), /readyz and every API path answer 503 STORAGE_UNAVAILABLE with the
// reason, and /metrics is served. Open hands every request to the real service from then on.
type Startup struct {
	reason  atomic.Pointer[string]
	service atomic.Pointer[http.Handler]
}

// NewStartup returns a Startup that reports reason until Open.
func NewStartup(reason string) *Startup {
	s := &Startup{}
	s.Wait(reason)
	return s
}

// Wait sets what the service is waiting for ("the data store is unreachable", "migrating").
func (s *Startup) Wait(reason string) { s.reason.Store(&reason) }

// Open starts serving the built service.
func (s *Startup) Open(service http.Handler) { s.service.Store(&service) }

var startupMetrics = promhttp.Handler()

func (s *Startup) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := s.service.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	withRequestID(http.HandlerFunc(s.serveStarting)).ServeHTTP(w, r)
}

func (s *Startup) serveStarting(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
		return
	case "/metrics":
		startupMetrics.ServeHTTP(w, r)
		return
	}
	e := Fail(http.StatusServiceUnavailable, CodeStorageUnavailable, "not ready: %s; retry in %s seconds", *s.reason.Load(), retryAfterSeconds)
	w.Header().Set("Retry-After", retryAfterSeconds)
	writeError(w, e)
}
