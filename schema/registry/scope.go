package registry

import "slices"

// Scope is a permission carried by a token.
type Scope string

const (
	ScopeCollect Scope = "collect" // submit archives, read own jobs
	ScopeRead    Scope = "read"    // site data endpoints and job reads
	ScopeTargets Scope = "targets" // create and update targets
	ScopeAdvices Scope = "advices" // recommendation jobs
	ScopeAdmin   Scope = "admin"   // reference data; implies every other scope of its tenant
)

// Scopes lists every scope, in documentation order.
var Scopes = []Scope{ScopeCollect, ScopeRead, ScopeTargets, ScopeAdvices, ScopeAdmin}

// ValidScope tells whether s names a scope.
func ValidScope(s string) bool { return slices.Contains(Scopes, Scope(s)) }

// Allows tells whether a token holding scopes may act with any of the wanted scopes.
func Allows(held []string, wanted ...Scope) bool {
	if slices.Contains(held, string(ScopeAdmin)) {
		return true
	}
	for _, w := range wanted {
		if slices.Contains(held, string(w)) {
			return true
		}
	}
	return false
}
