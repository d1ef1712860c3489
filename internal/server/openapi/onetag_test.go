package openapi

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the checkout this package sits in.
const repoRoot = "../../.."

// docTag is a struct tag key this package once read for descriptions.
var docTag = regexp.MustCompile("`[^`]*\\bdoc:\"")

// A field is described once, by the jsonschema tag that both this package
// and the MCP SDK read: a second description tag would drift from it.
func TestOneDescriptionTag(t *testing.T) {
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "data" || strings.HasPrefix(d.Name(), ".") && p != repoRoot) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "onetag_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if docTag.MatchString(line) {
				t.Errorf("%s:%d: a doc tag; describe the field with jsonschema:\"…\", which the OpenAPI document and the MCP schemas both read", p, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
