package consumption

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// update rewrites the golden answers under testdata/ from what the code answers now.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current answers")

// goldenLines lays a compact JSON answer out one line per member of the top-level object and
// per element of its arrays (one consumption item a line), so that a diff names the items that
// changed. Only newlines are inserted, never inside strings (encoded JSON has none there, and
// only its final byte is one): removing them, but the last, gives the answer's bytes back.
func goldenLines(body []byte) []byte {
	out := make([]byte, 0, len(body)+len(body)/64)
	depth, inString, escaped := 0, false, false
	for _, c := range body {
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			out = append(out, c)
			if depth <= 2 {
				out = append(out, '\n')
			}
			continue
		case '}', ']':
			if depth <= 2 {
				out = append(out, '\n')
			}
			depth--
		case ',':
			if depth <= 2 {
				out = append(out, c, '\n')
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// checkGolden compares body with the golden file testdata/answers/<name>.json (lower case,
// dashes for spaces) byte for byte,
// or rewrites the file under -update. A difference is reported as the lines (items) that
// changed and, for the first one, the members that differ.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	file := strings.ToLower(strings.NewReplacer(" ", "-", ",", "").Replace(name))
	path := filepath.Join("testdata", "answers", file+".json")
	got := goldenLines(body)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -run %s -update to write it)", name, err, t.Name())
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s: answer differs from %s (go test -run %s -update rewrites it):\n%s", name, path, t.Name(), lineDiff(string(want), string(got)))
	}
}

// lineDiff lists up to 5 lines that differ, then the members of the first pair that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	if len(w) != len(g) {
		fmt.Fprintf(&b, "%d lines, want %d\n", len(g), len(w))
	}
	shown, first := 0, -1
	for i := 0; i < max(len(w), len(g)) && shown < 5; i++ {
		wl, gl := at(w, i), at(g, i)
		if wl == gl {
			continue
		}
		if first < 0 {
			first = i
		}
		fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		shown++
	}
	if first >= 0 {
		b.WriteString(memberDiff(at(w, first), at(g, first)))
	}
	return b.String()
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// memberDiff names the members of two JSON objects (one line each, trailing comma allowed)
// whose values differ.
func memberDiff(want, got string) string {
	var w, g map[string]any
	if json.Unmarshal([]byte(strings.TrimSuffix(want, ",")), &w) != nil || json.Unmarshal([]byte(strings.TrimSuffix(got, ",")), &g) != nil {
		return ""
	}
	keys := make([]string, 0, len(w)+len(g))
	for k := range w {
		keys = append(keys, k)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		if !reflect.DeepEqual(w[k], g[k]) {
			wj, _ := json.Marshal(w[k])
			gj, _ := json.Marshal(g[k])
			fmt.Fprintf(&b, "  %s: %s, want %s\n", k, gj, wj)
		}
	}
	return b.String()
}

// TestGoldenLinesKeepTheBytes: removing the newlines gives the answer back, strings holding
// the structural characters included.
func TestGoldenLinesKeepTheBytes(t *testing.T) {
	body := []byte(`{"a":[{"b":"x,[{\"y\"}]","c":[1,2]},{"d":{"e":1}}],"f":"g"}`)
	lines := goldenLines(body)
	want := "{\n\"a\":[\n{\"b\":\"x,[{\\\"y\\\"}]\",\"c\":[1,2]},\n{\"d\":{\"e\":1}}\n],\n\"f\":\"g\"\n}"
	if string(lines) != want {
		t.Errorf("goldenLines:\n%s\nwant\n%s", lines, want)
	}
	if !bytes.Equal(bytes.ReplaceAll(lines, []byte("\n"), nil), body) {
		t.Error("newlines removed do not give the body back")
	}
}
