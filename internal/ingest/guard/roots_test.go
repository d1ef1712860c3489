package guard_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
)

// tree builds:
//
//	base/root1/a.txt, sub/b.md, sub/deep/c.html, .hidden.txt, .git/x.md, x.bin,
//	  escape.txt -> ../outside/secret.txt, inner.md -> a.txt, linkdir -> ../outside,
//	  dangling.txt -> nowhere.txt
//	base/root2/c.txt, a2.txt
//	base/outside/secret.txt
//	base/alias -> root2
func tree(t *testing.T) (base string, roots *guard.Roots) {
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
	roots, err = guard.NewRoots([]string{filepath.Join(base, "root1"), filepath.Join(base, "alias")})
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
	_, err := guard.NewRoots([]string{t.TempDir(), missing})
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
	r, err := guard.NewRoots(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(t.TempDir())
	wantKind(t, err, ragd.KindForbidden)
}

func TestWalkFiles(t *testing.T) {
	base, roots := tree(t)
	r1 := filepath.Join(base, "root1")
	got, err := ingest.WalkFiles(r1, true, roots, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(r1, "a.txt"), filepath.Join(r1, "sub/b.md"), filepath.Join(r1, "sub/deep/c.html")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recursive:\n got %q\nwant %q", got, want)
	}
	got, err = ingest.WalkFiles(r1, false, roots, 100)
	if err != nil || !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("flat: %q %v", got, err)
	}
	_, err = ingest.WalkFiles(r1, true, roots, 2)
	wantKind(t, err, ragd.KindTooLarge, "more than 2")
	_, err = ingest.WalkFiles(filepath.Join(r1, "a.txt"), true, roots, 0)
	wantKind(t, err, ragd.KindInvalid, "not a directory")
}

// TestResolveOutsideRevealsNothing: a path that leads out of the roots is
// refused with the same answer whether its target exists or not, and the
// answer never names the target (probing the filesystem learns nothing).
func TestResolveOutsideRevealsNothing(t *testing.T) {
	base, roots := tree(t)
	r1 := filepath.Join(base, "root1")
	for link, target := range map[string]string{
		"to-existing.txt": filepath.Join(base, "outside", "secret.txt"),
		"to-missing.txt":  filepath.Join(base, "outside", "nothing.txt"),
		"rel-existing":    "../outside/secret.txt",
		"rel-missing":     "../outside/nothing.txt",
		"dir-missing":     "../nowhere",
	} {
		if err := os.Symlink(target, filepath.Join(r1, link)); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(p string) string {
		_, err := roots.Resolve(p)
		var e *ragd.Error
		if !errors.As(err, &e) || e.Kind != ragd.KindForbidden {
			t.Fatalf("Resolve(%q): want Forbidden, got %v", p, err)
		}
		msg := strings.ReplaceAll(e.Error(), p, "<path>")
		for _, leak := range []string{filepath.Join(base, "outside"), "secret", "nothing", "nowhere"} {
			if strings.Contains(msg, leak) {
				t.Errorf("Resolve(%q) names the target: %q", p, e.Error())
			}
		}
		return msg
	}
	pairs := [][2]string{
		{"to-existing.txt", "to-missing.txt"},
		{"rel-existing", "rel-missing"},
		{"linkdir/secret.txt", "linkdir/nothing.txt"},
		{"linkdir/secret.txt", "dir-missing/x.txt"},
		{filepath.Join(r1, "to-existing.txt"), filepath.Join(r1, "to-missing.txt")},
	}
	for _, pr := range pairs {
		if a, b := answer(pr[0]), answer(pr[1]); a != b {
			t.Errorf("answers differ by existence:\n %s: %s\n %s: %s", pr[0], a, pr[1], b)
		}
	}
}

// TestResolveLinkCycleAndDetours: a symlink cycle is an error, not a hang;
// a link that passes through a root's ancestor into another root is fine.
func TestResolveLinkCycleAndDetours(t *testing.T) {
	base, roots := tree(t)
	r1, r2 := filepath.Join(base, "root1"), filepath.Join(base, "root2")
	for link, target := range map[string]string{"loop1": "loop2", "loop2": "loop1", "over.txt": "../root2/c.txt"} {
		if err := os.Symlink(target, filepath.Join(r1, link)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := roots.Resolve("loop1")
	wantKind(t, err, ragd.KindInvalid, "too many levels of symbolic links")
	got, err := roots.Resolve("over.txt")
	if err != nil || got != filepath.Join(r2, "c.txt") {
		t.Errorf("over.txt = %q, %v", got, err)
	}
}

func TestOpenRegularRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.txt")
	if err := syscallMkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, _, err := guard.OpenRegular(fifo) // must not block: no writer ever comes
	if f != nil {
		f.Close()
	}
	wantKind(t, err, ragd.KindInvalid, "named pipe (FIFO)", "not a regular file")
	_, _, err = guard.OpenRegular(dir)
	wantKind(t, err, ragd.KindInvalid, "a directory")
	_, _, err = guard.OpenRegular("/dev/null")
	wantKind(t, err, ragd.KindInvalid, "character device")
	reg := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(reg, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, fi, err := guard.OpenRegular(reg)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("regular file: %v", err)
	}
	f.Close()
}
