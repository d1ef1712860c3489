package stack

import (
	"path/filepath"
	"testing"

	"ragd/internal/testkit/testenv"
)

// SpecDocs are the GOROOT/doc pages SpecQueries ask about.
var SpecDocs = []string{"go_spec.html", "go_mem.html", "asm.html", "godebug.md"}

// CopySpecDocs copies SpecDocs into dir and returns it.
func CopySpecDocs(tb testing.TB, dir string) string {
	tb.Helper()
	for _, name := range SpecDocs {
		testenv.CopyFile(tb, testenv.GorootFile(tb, "doc/"+name), filepath.Join(dir, name))
	}
	return dir
}
