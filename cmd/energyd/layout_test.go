package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsFlowOneWay enforces the layout of README.md's and CONTRIBUTING.md's "Layout" in
// production code: cmd → apidocs → {ingest, query} → schema; ingest and query never import each other, and
// nothing below cmd imports apidocs or cmd; bench/synth, which bench and energyctl's demo share, imports none of them.
func TestImportsFlowOneWay(t *testing.T) {
	forbidden := map[string][]string{
		"schema":      {"energy/apidocs", "energy/ingest", "energy/query", "energy/cmd"},
		"ingest":      {"energy/apidocs", "energy/query", "energy/cmd"},
		"query":       {"energy/apidocs", "energy/ingest", "energy/cmd"},
		"apidocs":     {"energy/cmd"},
		"bench/synth": {"energy/apidocs", "energy/ingest", "energy/query", "energy/schema", "energy/cmd"}, // the generators' calendar stands alone
	}
	for top, bad := range forbidden {
		err := filepath.WalkDir(filepath.Join("../..", top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, b := range bad {
					if path == b || strings.HasPrefix(path, b+"/") {
						t.Errorf("%s imports %s: imports flow cmd → apidocs → {ingest, query} → schema", p, path)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
