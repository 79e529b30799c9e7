package apidocs

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The request-id check accepts exactly what its pattern describes.
func TestSaneRequestIDAsItsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9._:/+=@-]{1,128}$`)
	cases := []string{"", "a", "abc-123", "req-panic-42", "A.b_c:d/e+f=g@h-i", strings.Repeat("x", 128), strings.Repeat("x", 129),
		"a b", `a"b`, "a\tb", "é", "a\x00", "a,b", "a;b", "a\nb", "(x)", "~"}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ09._:/+=@- \"',;\t\x00é~"
	for range 5000 {
		b := make([]byte, rng.IntN(140))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, id := range cases {
		if got, want := saneRequestID(id), pattern.MatchString(id); got != want {
			t.Errorf("saneRequestID(%q) = %v, pattern says %v", id, got, want)
		}
	}
}
