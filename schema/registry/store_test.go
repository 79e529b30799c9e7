package registry

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The identifier check accepts exactly what IDPattern (the rule the OpenAPI description
// publishes) describes.
func TestIsIDAsIDPattern(t *testing.T) {
	pattern := regexp.MustCompile(IDPattern)
	cases := []string{"", "S1", "SITE-1", "a.b_c:d-e", "-a", ".a", "_a", ":a", "a b", "é", "a/b", "a\x00",
		strings.Repeat("x", 128), strings.Repeat("x", 129), "B0500"}
	rng := rand.New(rand.NewPCG(7, 8))
	const alphabet = "aZ09._:- /é\"+"
	for range 5000 {
		b := make([]byte, rng.IntN(140))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, id := range cases {
		if got, want := isID(id), pattern.MatchString(id); got != want {
			t.Errorf("isID(%q) = %v, IDPattern says %v", id, got, want)
		}
	}
}
