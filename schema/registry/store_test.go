package registry

import (
	"regexp"
	"strings"
	"testing"
)

// The identifier check accepts exactly what IDPattern (the rule the OpenAPI description
// publishes) describes: every one- and two-character id over letters, digits, the allowed
// punctuation and characters just outside it, each also after a valid start, and the length
// bounds.
func TestIsIDAsIDPattern(t *testing.T) {
	pattern := regexp.MustCompile(IDPattern)
	chars := []string{"a", "Z", "0", "9", ".", "_", ":", "-", " ", "/", "é", `"`, "+", "\x00", "@", "[", "`", "{"}
	ids := []string{"", strings.Repeat("x", 127), strings.Repeat("x", 128), strings.Repeat("x", 129), strings.Repeat("x", 127) + "-"}
	for _, a := range chars {
		ids = append(ids, a, "S1"+a)
		for _, b := range chars {
			ids = append(ids, a+b, "S1"+a+b)
		}
	}
	for _, id := range ids {
		if got, want := isID(id), pattern.MatchString(id); got != want {
			t.Errorf("isID(%q) = %v, IDPattern says %v", id, got, want)
		}
	}
}
