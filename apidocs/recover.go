package apidocs

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
)

// recoverPanics turns a panic into a 500 whose description carries the request id; the stack
// goes to the log, never to the client.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				id := RequestID(r.Context())
				slog.ErrorContext(r.Context(), "panic", "requestId", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				writeError(w, Fail(http.StatusInternalServerError, CodeInternal, "an unexpected error occurred; quote request id %s when reporting it", id))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
