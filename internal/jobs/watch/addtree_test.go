package watch

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
)

func mkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func watched(t *testing.T, root string, fw *fsnotify.Watcher) []string {
	t.Helper()
	var out []string
	for _, p := range fw.WatchList() {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// The watcher watches the directories a sync walks and no others: not
// node_modules, hidden ones, nor what an ignore file excludes — also when
// such a directory is created after the watch began; and when an ignore
// file changes, what it no longer excludes.
func TestWatchSkipsIgnoredDirectories(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, "docs/data", "data/uploads", "node_modules/x", ".tools/mod", "guide/build", "secret")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/data/\nbuild/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ragdignore"), []byte("secret/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	w := &Watcher{entry: Entry{Path: root, Recursive: true}, log: slog.New(slog.DiscardHandler)}
	if err := w.addTree(fw, root); err != nil {
		t.Fatal(err)
	}
	want := []string{".", "docs", "docs/data", "guide"}
	if got := watched(t, root, fw); !slices.Equal(got, want) {
		t.Errorf("watching %q, want %q", got, want)
	}

	mkdirs(t, root, "docs/node_modules/y", "docs/build", "docs/new")
	for _, d := range []string{"docs/node_modules", "docs/build", "docs/new"} {
		w.event(fw, fsnotify.Event{Name: filepath.Join(root, d), Op: fsnotify.Create})
	}
	want = []string{".", "docs", "docs/data", "docs/new", "guide"}
	if got := watched(t, root, fw); !slices.Equal(got, want) {
		t.Errorf("after creating directories, watching %q, want %q", got, want)
	}

	// An ignore file that stops excluding build/ has it watched.
	gitignore := filepath.Join(root, ".gitignore")
	if err := os.WriteFile(gitignore, []byte("/data/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.event(fw, fsnotify.Event{Name: gitignore, Op: fsnotify.Write})
	want = []string{".", "docs", "docs/build", "docs/data", "docs/new", "guide", "guide/build"}
	if got := watched(t, root, fw); !slices.Equal(got, want) {
		t.Errorf("after the .gitignore changed, watching %q, want %q", got, want)
	}
}
