package apidocs

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/audit"
	"energy/schema/registry"
)

// bearerScheme is the OpenAPI security scheme name of the bearer token.
const bearerScheme = "bearer"

type tokenKey struct{}

// Caller returns the authenticated token of the request (zero outside authenticated operations).
func Caller(ctx context.Context) registry.Token {
	t, _ := ctx.Value(tokenKey{}).(registry.Token)
	return t
}

// requireScopes is an operation's security requirement: a bearer token holding any of scopes
// (admin implies all).
func requireScopes(scopes ...registry.Scope) []map[string][]string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return []map[string][]string{{bearerScheme: names}}
}

// authenticate checks the bearer token of operations that declare a security requirement,
// before their input is parsed: 401 for a missing, malformed, unknown, revoked or expired
// token, 403 when it lacks every scope the operation accepts.
func authenticate(api huma.API, store *registry.Store) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		op := ctx.Operation()
		if op == nil || len(op.Security) == 0 {
			next(ctx)
			return
		}
		secret, ok := bearerSecret(ctx.Header("Authorization"))
		if !ok {
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="energy"`)
			_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "the Authorization header must be \"Bearer <token>\"")
			return
		}
		tok, err := store.Authenticate(ctx.Context(), secret)
		if errors.Is(err, registry.ErrUnauthenticated) {
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="energy", error="invalid_token"`)
			_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "the bearer token is unknown, revoked or expired")
			return
		}
		if err != nil {
			_ = huma.WriteErr(api, ctx, http.StatusInternalServerError, "", err)
			return
		}
		var wanted []registry.Scope
		for _, req := range op.Security {
			for _, s := range req[bearerScheme] {
				wanted = append(wanted, registry.Scope(s))
			}
		}
		if len(wanted) > 0 && !registry.Allows(tok.Scopes, wanted...) {
			_ = huma.WriteErr(api, ctx, http.StatusForbidden, "the Authorization token does not have permission to the resource: it needs scope "+joinScopes(wanted))
			return
		}
		// The stores write who made each admin change into the audit trail.
		actx := audit.WithActor(context.WithValue(ctx.Context(), tokenKey{}, tok), audit.Actor{TokenID: tok.TokenID, TenantID: tok.TenantID})
		next(huma.WithContext(ctx, actx))
	}
}

// bearerSecret extracts the token of "Bearer <token>"; the scheme word is case-insensitive.
func bearerSecret(header string) (string, bool) {
	scheme, secret, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	secret = strings.TrimSpace(secret)
	return secret, secret != "" && !strings.ContainsAny(secret, " \t")
}

func joinScopes(s []registry.Scope) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = string(x)
	}
	return strings.Join(parts, " or ")
}
