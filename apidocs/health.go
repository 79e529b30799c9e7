package apidocs

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// ErrShuttingDown is what a Ready function returns once the process has been told to stop:
// /readyz then says so, while requests are still served, until the listeners close.
var ErrShuttingDown = errors.New("shutting down")

type healthOutput struct {
	Body struct {
		Status string `json:"status" example:"ok"`
	}
}

// healthHandler answers the probes: live is the liveness check, ready the readiness one.
type healthHandler struct{ live, ready func(context.Context) error }

// registerHealth registers /healthz (the process answers and can still do its work) and /readyz
// (migrations applied and ClickHouse answers).
func registerHealth(api huma.API, live, ready func(context.Context) error) {
	if live == nil {
		live = func(context.Context) error { return nil }
	}
	h := &healthHandler{live: live, ready: ready}
	huma.Register(api, huma.Operation{
		OperationID: "healthz", Method: http.MethodGet, Path: "/healthz", Tags: []string{"Operations"},
		Summary:     "Liveness: the process answers and can still do its work",
		Description: "503 STORAGE_UNAVAILABLE when the data store that energyd launched itself stopped and cannot be restarted: restarting energyd is then the remedy. A store that is only slow or briefly down is reported by /readyz, not here.",
		Errors:      []int{http.StatusServiceUnavailable},
	}, h.healthz)
	huma.Register(api, huma.Operation{
		OperationID: "readyz", Method: http.MethodGet, Path: "/readyz", Tags: []string{"Operations"},
		Summary:     "Readiness: migrations applied and ClickHouse answers",
		Description: "503 STORAGE_UNAVAILABLE until the schema is migrated, while ClickHouse does not answer, and from the moment the process is told to stop (SIGTERM), while it still serves requests for a short delay before closing its listeners.",
		Errors:      []int{http.StatusServiceUnavailable},
	}, h.readyz)
}

func (h *healthHandler) healthz(ctx context.Context, _ *struct{}) (*healthOutput, error) {
	if err := h.live(ctx); err != nil {
		slog.ErrorContext(ctx, "not live", "requestId", RequestID(ctx), "error", err)
		e := Fail(http.StatusServiceUnavailable, CodeStorageUnavailable, "the embedded data store stopped and cannot be restarted; restart the service")
		e.headers = http.Header{"Retry-After": {retryAfterSeconds}}
		return nil, e
	}
	out := &healthOutput{}
	out.Body.Status = "ok"
	return out, nil
}

func (h *healthHandler) readyz(ctx context.Context, _ *struct{}) (*healthOutput, error) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := h.ready(pctx); errors.Is(err, ErrShuttingDown) {
		e := Fail(http.StatusServiceUnavailable, CodeStorageUnavailable, "not ready: shutting down; send requests to another instance")
		e.headers = http.Header{"Retry-After": {retryAfterSeconds}}
		return nil, e
	} else if err != nil {
		// The cause (driver messages with internal addresses) goes to the log, not the client.
		slog.WarnContext(ctx, "not ready", "requestId", RequestID(ctx), "error", err)
		e := Fail(http.StatusServiceUnavailable, CodeStorageUnavailable, "not ready: the schema is not migrated yet or the data store does not answer; retry in %s seconds", retryAfterSeconds)
		e.headers = http.Header{"Retry-After": {retryAfterSeconds}}
		return nil, e
	}
	out := &healthOutput{}
	out.Body.Status = "ready"
	return out, nil
}
