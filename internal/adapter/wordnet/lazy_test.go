package wordnet

import (
	"strings"
	"testing"
)

func memoized(dir string) bool {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	return loaded[dir] != nil
}

// A Lazy reads nothing until asked for words, then answers like the DB.
func TestLazyReadsOnFirstUse(t *testing.T) {
	dir := copyTiny(t)
	if err := Check(dir); err != nil {
		t.Fatalf("Check of a complete database: %v", err)
	}
	l := NewLazy(dir, func(err error) { t.Errorf("unexpected read error: %v", err) })
	if memoized(dir) {
		t.Fatal("database read before first use")
	}
	db, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(l.Related("heap", 2), " "), strings.Join(db.Related("heap", 2), " "); got != want || got == "" {
		t.Errorf("Lazy.Related(heap) = %q, DB.Related = %q", got, want)
	}
	if got, want := strings.Join(l.BaseForms("mice"), " "), strings.Join(db.BaseForms("mice"), " "); got != want || got == "" {
		t.Errorf("Lazy.BaseForms(mice) = %q, DB.BaseForms = %q", got, want)
	}
	if l.Load() != db {
		t.Error("Lazy should share the per-directory database")
	}
}

// A missing database is reported by Check and, read lazily, once through
// onErr; the Lazy then relates no words rather than failing searches.
func TestLazyMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := Check(dir); err == nil || !strings.Contains(err.Error(), "wordnet-base") {
		t.Errorf("Check of an empty directory: %v, want an error naming wordnet-base", err)
	}
	var errs []error
	l := NewLazy(dir, func(err error) { errs = append(errs, err) })
	for range 3 {
		if got := l.Related("heap", 1); got != nil {
			t.Errorf("Related without a database: %v", got)
		}
		if got := l.BaseForms("heaps"); got != nil {
			t.Errorf("BaseForms without a database: %v", got)
		}
	}
	if len(errs) != 1 {
		t.Errorf("onErr called %d times, want once", len(errs))
	}
}
