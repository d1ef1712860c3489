package gitsync

import (
	"context"
	"sync"
	"testing"

	"ragd"
	"ragd/internal/testkit/gitserver"
)

// Fetches of one source at once — a scheduled sync and a dry run, say —
// take turns on its clone: each sees the ref's commit, none fails on the
// other's half-made remote or pack.
func TestConcurrentFetchesOfOneSource(t *testing.T) {
	repo := gitserver.NewRepo(t, "notes")
	repo.Write("a.md", "# A\n\nOne.\n")
	head := repo.Commit("first")
	url, _ := gitserver.Daemon(t, repo)
	s := &Syncer{Dir: t.TempDir()}
	src := ragd.Source{ID: "src_0123456789abcdef", Kind: ragd.SourceGit, URL: url}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := s.fetch(context.Background(), src)
			if err == nil && f.commit.String() != head {
				t.Errorf("fetched %s, want %s", f.commit, head)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a concurrent fetch failed: %v", err)
		}
	}
}
