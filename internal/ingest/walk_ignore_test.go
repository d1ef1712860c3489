package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest/guard"
)

// ignoreTree builds a directory with everything a walk should leave out
// (dependency trees, hidden tool caches, ragd's data dir, what .gitignore
// and .ragdignore files exclude) next to look-alikes it must keep. It
// returns the resolved root.
func ignoreTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"keep.md":                         "kept",
		"node_modules/x/README.md":        "dependency",
		"test/client/node_modules/y/a.md": "nested dependency",
		".tools/mod/README.md":            "tool cache",
		"data/uploads/notes.md":           "ragd's data dir, excluded by /data/",
		"docs/data/table.md":              "kept: /data/ is anchored at the root",
		"build/out.md":                    "excluded by build/",
		"guide/build/x.md":                "excluded: build/ has no slash before, so it matches at any depth",
		"ref.md/inner.md":                 "excluded: a directory named ref.md (ref.md/)",
		"guide/ref.md":                    "kept: ref.md/ matches directories only",
		"other.log.md":                    "excluded by *.log.md",
		"wanted.log.md":                   "kept: .ragdignore re-includes it",
		"guide/keep.log.md":               "kept: the nested .gitignore re-includes it",
		"guide/skip.log.md":               "excluded by the root *.log.md",
		"guide/local.md":                  "excluded by the nested local.md",
		"local.md":                        "kept: a nested pattern applies to its subtree only",
		"secret/plan.md":                  "excluded by .ragdignore",
		".gitignore":                      "# comment\n/data/\nbuild/\nref.md/\n*.log.md\r\n\n",
		"guide/.gitignore":                "!keep.log.md\nlocal.md\n",
		".ragdignore":                     "secret/\n!wanted.log.md\n",
	}
	for f, text := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func relAll(t *testing.T, root string, files []string) []string {
	t.Helper()
	out := make([]string, len(files))
	for i, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.ToSlash(rel)
	}
	slices.Sort(out)
	return out
}

// The walk leaves out node_modules, hidden directories, and what the
// ignore files exclude, with gitignore's semantics: anchored and
// unanchored patterns, directory-only patterns, nested files applying to
// their subtree, negation, and .ragdignore over .gitignore.
func TestWalkFilesSkipsIgnored(t *testing.T) {
	root := ignoreTree(t)
	roots, err := guard.NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got, err := WalkFiles(root, true, roots, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/data/table.md", "guide/keep.log.md", "guide/ref.md", "keep.md", "local.md", "wanted.log.md"}
	if g := relAll(t, root, got); !slices.Equal(g, want) {
		t.Errorf("walk listed\n%q\nwant\n%q", g, want)
	}
}

// include_ignored lists everything but hidden entries.
func TestWalkFilesIncludeIgnored(t *testing.T) {
	root := ignoreTree(t)
	roots, err := guard.NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got, err := WalkFilesWith(root, roots, WalkOptions{Recursive: true, IncludeIgnored: true, MaxFiles: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"build/out.md", "data/uploads/notes.md", "docs/data/table.md", "guide/build/x.md", "guide/keep.log.md",
		"guide/local.md", "guide/ref.md", "guide/skip.log.md", "keep.md", "local.md", "node_modules/x/README.md",
		"other.log.md", "ref.md/inner.md", "secret/plan.md", "test/client/node_modules/y/a.md", "wanted.log.md"}
	if g := relAll(t, root, got); !slices.Equal(g, want) {
		t.Errorf("walk listed\n%q\nwant\n%q", g, want)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Ignore files come with the directory: one too large to be real, or
// patterns enough to slow every match, fail the walk (naming the way out)
// instead of costing time and memory without bound; a symlinked one is
// not followed and a FIFO does not hang the walk.
func TestWalkFilesBoundsIgnoreFiles(t *testing.T) {
	walk := func(root string) ([]string, error) {
		roots, err := guard.NewRoots([]string{root})
		if err != nil {
			t.Fatal(err)
		}
		return WalkFiles(root, true, roots, 100)
	}
	tooLarge := func(what string, files map[string][]byte) {
		t.Helper()
		root := t.TempDir()
		for f, b := range files {
			writeFile(t, filepath.Join(root, f), b)
			writeFile(t, filepath.Join(root, filepath.Dir(f), "x.md"), []byte("x")) // so the walk reads it
		}
		start := time.Now()
		_, err := walk(root)
		if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "include_ignored") {
			t.Errorf("%s: %v, want a too-large error naming include_ignored", what, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %s", what, d)
		}
	}
	tooLarge("one oversized file", map[string][]byte{"sub/.gitignore": bytes.Repeat([]byte("x\n"), maxIgnoreBytes)})
	third := bytes.Repeat([]byte("#\n"), maxIgnoreBytes/6+1) // comments: bytes without patterns
	tooLarge("files too large together", map[string][]byte{"a/.gitignore": third, "b/.gitignore": third, "c/.ragdignore": third})
	var lines []byte
	for i := range maxIgnorePatterns/3 + 1 {
		lines = fmt.Appendf(lines, "p%d\n", i)
	}
	tooLarge("too many patterns together", map[string][]byte{"a/.gitignore": lines, "b/.gitignore": lines, "b/c/.ragdignore": lines})

	odd := t.TempDir()
	outside := filepath.Join(t.TempDir(), "patterns")
	writeFile(t, outside, []byte("*.md\n"))
	writeFile(t, filepath.Join(odd, "a.md"), []byte("a"))
	writeFile(t, filepath.Join(odd, "sub", "b.md"), []byte("b"))
	if err := os.Symlink(outside, filepath.Join(odd, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(odd, "sub", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := walk(odd)
	if err != nil || len(got) != 2 {
		t.Errorf("a symlinked and a FIFO .gitignore: %q, %v; want both files listed", got, err)
	}
}
