package apidocs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
)

type requestIDKey struct{}

// saneRequestID is what a client-sent id may look like to be echoed into headers, logs and
// error descriptions.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:/+=@-]{1,128}$`)

// RequestID returns the request's id (empty outside a request).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// withRequestID echoes X-Request-Id when the client sent a sane one (1-128 characters without
// spaces or quotes), else makes one, and puts
// it in the response and the request context.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID.MatchString(id) {
			b := make([]byte, 12)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}
