package ragd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// systemReaders are the only packages whose code may read the registry
// whatever the context's audience (registry.Registry.GetAny): the
// bookkeeping of versions and jobs, which must see every document. A
// read for a user calls Get, GetMany or BySourcePrefix, which apply the
// audience themselves (docs/ARCHITECTURE.md, "A principal sees only the
// documents shared with it").
var systemReaders = []string{
	"internal/catalog/registry", // Delete, MayIndex
	"internal/catalog/versions", // Keeper's discard of a version
	"internal/jobs/worker",      // a document job's previous version, dedup owner, move
	"internal/jobs/importjob",   // an import's previous version (an operator's)
	"internal/jobs/switchjob",   // an embedder switch's copy (an operator's)
}

// Only the system's packages call GetAny: a package serving users that
// called it would read documents hidden from them.
func TestGetAnyOnlyForTheSystem(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if dir := filepath.ToSlash(filepath.Dir(path)); !slices.Contains(systemReaders, dir) {
			for _, at := range getAnyCalls(t, path) {
				t.Errorf("%s calls GetAny, which reads documents whatever the audience: call Get (or add the package to systemReaders if it is the system's bookkeeping)", at)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// getAnyCalls are the positions of the calls of a method GetAny in the file.
func getAnyCalls(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "GetAny" {
			at = append(at, fset.Position(sel.Pos()).String())
		}
		return true
	})
	return at
}
