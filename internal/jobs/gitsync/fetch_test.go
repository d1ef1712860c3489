package gitsync

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"ragd"
	"ragd/internal/ingest/guard"
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

// A remote that passes the address check and then redirects to an address
// the check refuses is refused at the dial, as URL ingest's redirects are:
// the "public" server listens on 127.0.0.2 and redirects to the git server
// on 127.0.0.1, which this test's guard treats as private. The refusal is
// permanent (forbidden), not a remote to retry.
func TestRedirectToAPrivateAddressIsRefusedAtTheDial(t *testing.T) {
	repo := gitserver.NewRepo(t, "notes")
	repo.Write("a.md", "# A\n\nOne.\n")
	repo.Commit("first")
	private, err := url.Parse(gitserver.HTTP(t, repo))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v (Linux routes all of 127.0.0.0/8 to lo)", err)
	}
	front := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+private.Host+r.URL.RequestURI(), http.StatusFound)
	})}}
	front.Start()
	t.Cleanup(front.Close)
	s := &Syncer{Dir: t.TempDir(), Fetcher: guard.BlockingOnly(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") })}
	src := ragd.Source{ID: "src_0123456789abcdef", Kind: ragd.SourceGit, URL: front.URL + private.Path}
	_, err = s.fetch(context.Background(), src)
	if ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "private/loopback") {
		t.Fatalf("a fetch redirected to a refused address: %v (kind %v), want the address check's refusal", err, ragd.KindOf(err))
	}
}
