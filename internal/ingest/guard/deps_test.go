package guard_test

import (
	"os/exec"
	"strings"
	"testing"
)

// parserPackages are the ragd packages that parse documents, by import
// path (a package or the packages below it).
var parserPackages = []string{"ragd/internal/ingest", "ragd/internal/ingest/docx", "ragd/internal/ingest/pdftext"}

// parserModules are the parsing libraries, by module or package path.
var parserModules = []string{
	"github.com/pdfcpu/pdfcpu",
	"github.com/ledongthuc/pdf",
	"github.com/yuin/goldmark",
	"golang.org/x/net/html",
}

// TestGuardImportsNoParser keeps the path and URL guards apart from the
// parsers: a bug in a parser, or in a library one uses, cannot then reach
// the code that decides what a request may read.
func TestGuardImportsNoParser(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "ragd/internal/ingest/guard").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ragd/ingest/guard: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, dep := range deps {
		if p := parserDep(dep); p != "" {
			t.Errorf("ragd/ingest/guard depends on %s (a parser: %s)", dep, p)
		}
	}
}

// parserDep names the parser package or module dep is or lies in, "" when
// it is none.
func parserDep(dep string) string {
	for _, p := range parserPackages {
		if dep == p || (p != "ragd/internal/ingest" && strings.HasPrefix(dep, p+"/")) {
			return p
		}
	}
	for _, m := range parserModules {
		if dep == m || strings.HasPrefix(dep, m+"/") {
			return m
		}
	}
	return ""
}
