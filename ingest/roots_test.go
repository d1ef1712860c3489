package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ragd"
)

// tree builds:
//
//	base/root1/a.txt, sub/b.md, sub/deep/c.html, .hidden.txt, .git/x.md, x.bin,
//	  escape.txt -> ../outside/secret.txt, inner.md -> a.txt, linkdir -> ../outside,
//	  dangling.txt -> nowhere.txt
//	base/root2/c.txt, a2.txt
//	base/outside/secret.txt
//	base/alias -> root2
func tree(t *testing.T) (base string, roots *Roots) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := []string{
		"root1/a.txt", "root1/sub/b.md", "root1/sub/deep/c.html", "root1/.hidden.txt",
		"root1/.git/x.md", "root1/x.bin", "root2/c.txt", "root2/a2.txt", "outside/secret.txt",
	}
	for _, f := range files {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("text of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"root1/escape.txt":   "../outside/secret.txt",
		"root1/inner.md":     "a.txt",
		"root1/linkdir":      "../outside",
		"root1/dangling.txt": "nowhere.txt",
		"alias":              "root2",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	roots, err = NewRoots([]string{filepath.Join(base, "root1"), filepath.Join(base, "alias")})
	if err != nil {
		t.Fatal(err)
	}
	return base, roots
}

func wantKind(t *testing.T, err error, kind ragd.ErrorKind, contains ...string) {
	t.Helper()
	var e *ragd.Error
	if !errors.As(err, &e) || e.Kind != kind {
		t.Fatalf("want ragd.Error kind %d, got %T %v", kind, err, err)
	}
	for _, c := range contains {
		if !strings.Contains(e.Error(), c) {
			t.Errorf("message %q lacks %q", e.Error(), c)
		}
	}
}

func TestNewRootsMissingRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := NewRoots([]string{t.TempDir(), missing})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v", err)
	}
}

func TestResolve(t *testing.T) {
	base, roots := tree(t)
	r1, r2 := filepath.Join(base, "root1"), filepath.Join(base, "root2")
	if got := roots.String(); got != r1+", "+r2 {
		t.Errorf("String() = %q", got)
	}

	ok := map[string]string{
		"a.txt":                                filepath.Join(r1, "a.txt"),
		"sub/b.md":                             filepath.Join(r1, "sub/b.md"),
		"./sub/./deep/c.html":                  filepath.Join(r1, "sub/deep/c.html"),
		"c.txt":                                filepath.Join(r2, "c.txt"), // second root
		"inner.md":                             filepath.Join(r1, "a.txt"), // symlink inside
		filepath.Join(r1, "sub"):               filepath.Join(r1, "sub"),
		filepath.Join(base, "alias", "a2.txt"): filepath.Join(r2, "a2.txt"), // root named via its symlink
		r1:                                     r1,
	}
	for in, want := range ok {
		got, err := roots.Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}

	_, err := roots.Resolve("")
	wantKind(t, err, ragd.KindInvalid)

	for _, in := range []string{"../outside/secret.txt", "sub/../a.txt", r1 + "/../outside/secret.txt"} {
		_, err := roots.Resolve(in)
		wantKind(t, err, ragd.KindForbidden, "..", r1)
	}
	// A backslash is a file name character here, not a separator: no
	// traversal, and no such file.
	if filepath.Separator == '/' {
		_, err := roots.Resolve(`sub\..\a.txt`)
		wantKind(t, err, ragd.KindInvalid, "no such file")
	}
	_, err = roots.Resolve(filepath.Join(base, "outside", "secret.txt"))
	wantKind(t, err, ragd.KindForbidden, "outside the ingest roots", r1, r2)
	_, err = roots.Resolve("/etc/passwd")
	wantKind(t, err, ragd.KindForbidden, r1)

	for _, in := range []string{"escape.txt", "linkdir/secret.txt", filepath.Join(r1, "escape.txt")} {
		_, err := roots.Resolve(in)
		wantKind(t, err, ragd.KindForbidden, "outside the ingest roots", r1)
	}

	_, err = roots.Resolve("missing.txt")
	wantKind(t, err, ragd.KindInvalid, "no such file or directory: missing.txt")
	var e *ragd.Error
	errors.As(err, &e)
	if want := []ragd.FieldError{{Loc: []string{"body", "file_path"}, Msg: e.Message, Type: "value_error"}}; !reflect.DeepEqual(e.Fields, want) {
		t.Errorf("fields = %+v", e.Fields)
	}
	_, err = roots.Resolve("dangling.txt")
	wantKind(t, err, ragd.KindInvalid, "no such file or directory")

	if !roots.Contains(filepath.Join(r1, "x", "y")) || !roots.Contains(r2) || roots.Contains(base) || roots.Contains(r1+"x") {
		t.Error("Contains is wrong")
	}
}

func TestResolveWithoutRoots(t *testing.T) {
	r, err := NewRoots(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(t.TempDir())
	wantKind(t, err, ragd.KindForbidden)
}

func TestWalkFiles(t *testing.T) {
	base, roots := tree(t)
	r1 := filepath.Join(base, "root1")
	got, err := WalkFiles(r1, true, roots, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(r1, "a.txt"), filepath.Join(r1, "sub/b.md"), filepath.Join(r1, "sub/deep/c.html")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recursive:\n got %q\nwant %q", got, want)
	}
	got, err = WalkFiles(r1, false, roots, 100)
	if err != nil || !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("flat: %q %v", got, err)
	}
	_, err = WalkFiles(r1, true, roots, 2)
	wantKind(t, err, ragd.KindTooLarge, "more than 2")
	_, err = WalkFiles(filepath.Join(r1, "a.txt"), true, roots, 0)
	wantKind(t, err, ragd.KindInvalid, "not a directory")
}
