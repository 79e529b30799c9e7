package apidocs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

type requestIDKey struct{}

// RequestID returns the request's id (empty outside a request).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// saneRequestID tells whether a client-sent id may be echoed into headers, logs and error
// descriptions: 1 to 128 characters among A-Z a-z 0-9 and . _ : / + = @ - (no spaces or
// quotes). A loop, not a regular expression: it runs on every request.
func saneRequestID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == ':', c == '/', c == '+', c == '=', c == '@', c == '-':
		default:
			return false
		}
	}
	return true
}

// withRequestID echoes X-Request-Id when the client sent a sane one, else makes one, and puts
// it in the response and the request context.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			b := make([]byte, 12)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}
