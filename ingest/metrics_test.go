package ingest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tables whose insert series start at 0 are exactly the tables archives are inserted
// into: a new table gets its series from the start too. Both name their tables by the
// constants of schema/tables, which this test reads from the package's source.
func TestInsertedTablesListsEveryInsert(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	var inserted, listed []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if fun, ok := n.Fun.(*ast.Ident); ok && fun.Name == "insertTable" && len(n.Args) > 2 {
					inserted = append(inserted, constantName(t, fset, n.Args[2]))
				}
			case *ast.ValueSpec:
				if len(n.Names) == 1 && n.Names[0].Name == "insertedTables" {
					for _, e := range n.Values[0].(*ast.CompositeLit).Elts {
						listed = append(listed, constantName(t, fset, e))
					}
				}
			}
			return true
		})
	}
	slices.Sort(inserted)
	inserted = slices.Compact(inserted)
	slices.Sort(listed)
	if len(inserted) == 0 || !slices.Equal(inserted, listed) {
		t.Fatalf("archives are inserted into %v, insertedTables lists %v", inserted, listed)
	}
}

// constantName is the name of a tables.X table constant.
func constantName(t *testing.T, fset *token.FileSet, e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "tables" {
			return sel.Sel.Name
		}
	}
	t.Fatalf("%s: a table is named by a constant of schema/tables", fset.Position(e.Pos()))
	return ""
}
