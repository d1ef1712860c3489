package crawl_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"ragd"
	"ragd/internal/ingest/crawl"
	"ragd/internal/ingest/guard"
)

// TestCrawlGuard: every request goes through the SSRF guard. With the
// server's default guard a loopback site is refused before any request;
// with the guard's test setting (127.0.0.2 private), a start page that
// redirects to a site on 127.0.0.2 is refused by the guard and that site
// is never asked anything.
func TestCrawlGuard(t *testing.T) {
	s := docsSite(t)
	_, err := crawl.Crawl(context.Background(), &guard.Fetcher{}, crawl.Options{Start: s.url("/docs/"), Delay: -1},
		func(crawl.Page) error { return nil })
	if !kindIs(err, ragd.KindForbidden) || !strings.Contains(err.Error(), "allow_private_urls") {
		t.Errorf("a loopback site with the default guard: %v; want the guard's refusal", err)
	}
	if n := s.count(s.hits, "/robots.txt") + s.count(s.hits, "/docs/"); n != 0 {
		t.Errorf("the refused site was asked %d times", n)
	}

	var private atomic.Int32
	inner := listenOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		private.Add(1)
		w.Write([]byte("<a href=x>internal</a>"))
	}))
	s.redirects["/moved/"] = inner.URL + "/docs/"
	pages, _, err := run(t, crawl.Options{Start: s.url("/moved/")})
	if !kindIs(err, ragd.KindForbidden) || !strings.Contains(err.Error(), "127.0.0.2") || len(pages) != 0 {
		t.Errorf("a start page redirecting to a private address: %v with %d pages; want the guard's refusal", err, len(pages))
	}
	if private.Load() != 0 {
		t.Errorf("the private site was asked %d times", private.Load())
	}
}

// TestCrawlStartRules: robots.txt disallowing ragd the start page refuses
// the crawl; a start page redirecting to another page on the site moves
// the scope there; an error of the callback stops the crawl and is
// returned.
func TestCrawlStartRules(t *testing.T) {
	s := docsSite(t)
	s.set("/robots.txt", "text/plain", "User-agent: ragd\nDisallow: /docs/\n")
	_, _, err := run(t, crawl.Options{Start: s.url("/docs/")})
	if !kindIs(err, ragd.KindForbidden) || !strings.Contains(err.Error(), "robots.txt") || s.count(s.hits, "/docs/") != 0 {
		t.Errorf("robots.txt disallowing the start: %v (the start asked %d times); want refused, never asked", err, s.count(s.hits, "/docs/"))
	}
	s.set("/robots.txt", "text/plain", "")
	s.redirects["/start"] = "/docs/"
	pages, res, err := run(t, crawl.Options{Start: s.url("/start")})
	if err != nil || !res.Seen[s.url("/docs/a.html")] || len(pages) < 5 {
		t.Errorf("start redirecting to /docs/: %v, saw %v; want the /docs/ site", err, res.SeenURLs())
	}
	stop := errors.New("enough")
	n := 0
	_, err = crawl.Crawl(context.Background(), fetcher(), crawl.Options{Start: s.url("/docs/"), Delay: -1}, func(crawl.Page) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("a callback error: %v after %d calls; want it returned at once", err, n)
	}
}
