package apidocs

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// quietRoutes are polled by probes and scrapers: their lines are logged at debug level only.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// logRequest writes one structured line per request: method, route pattern, path, status,
// duration, response size and the request id that the response carried. Server errors are
// logged at error level.
func logRequest(log *slog.Logger, r *http.Request, listener, route string, status int, bytes int64, elapsed time.Duration) {
	if log == nil {
		log = slog.Default()
	}
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case quietRoutes[route] && status < 400:
		level = slog.LevelDebug
	}
	ctx := context.Background()
	if !log.Enabled(ctx, level) {
		return
	}
	log.LogAttrs(ctx, level, "request",
		slog.String("listener", listener),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Float64("durationMs", float64(elapsed.Microseconds())/1000),
		slog.Int64("bytes", bytes),
		slog.String("requestId", RequestID(r.Context())),
		slog.String("remote", r.RemoteAddr),
	)
}
