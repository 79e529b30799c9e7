package ingest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tables whose insert series start at 0 are exactly the tables archives are inserted
// into: a new table gets its series from the start too.
func TestInsertedTablesListsEveryInsert(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	call := regexp.MustCompile(`insertTable\(ctx, db, "([a-z_]+)"`)
	var found []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			found = append(found, m[1])
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	want := slices.Clone(insertedTables)
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Fatalf("archives are inserted into %v, insertedTables lists %v", found, want)
	}
}
