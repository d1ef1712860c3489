package crawl_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest/crawl"
)

// run crawls with quick settings and returns the pages by URL.
func run(t *testing.T, opts crawl.Options) (map[string]crawl.Page, crawl.Result, error) {
	t.Helper()
	if opts.Delay == 0 {
		opts.Delay = -1
	}
	pages := map[string]crawl.Page{}
	res, err := crawl.Crawl(context.Background(), fetcher(), opts, func(p crawl.Page) error {
		if _, dup := pages[p.URL]; dup {
			t.Errorf("page %s handed over twice", p.URL)
		}
		pages[p.URL] = p
		return nil
	})
	return pages, res, err
}

func states(pages map[string]crawl.Page) map[string]crawl.State {
	out := map[string]crawl.State{}
	for u, p := range pages {
		out[u] = p.State
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestCrawlSite crawls the generated site once: robots.txt's group for
// ragd is obeyed (and not the others'), the sitemap index's entries are
// read, redirects in scope are followed and out of scope are not, canonical
// and query duplicates are collapsed, links to images and outside the
// prefix are not followed, and a 404 is gone while a 500 failed.
func TestCrawlSite(t *testing.T) {
	s := docsSite(t)
	pages, res, err := run(t, crawl.Options{Start: s.url("/docs/")})
	if err != nil {
		t.Fatalf("crawl: %v", err)
	}
	want := []string{"/docs/", "/docs/a.html", "/docs/all-private/p.html", "/docs/b.html", "/docs/deep/1.html",
		"/docs/guide.md", "/docs/new.html", "/docs/only-in-sitemap.html"}
	var c []string
	for _, u := range keys(pages) {
		if strings.HasPrefix(u, s.url("/docs/c.html?")) {
			c = append(c, u)
			continue
		}
		if !slices.Contains(want, strings.TrimPrefix(u, s.url(""))) {
			t.Errorf("page %s handed over; want only %v and one /docs/c.html?v=…", u, want)
		}
	}
	for _, w := range want {
		if _, ok := pages[s.url(w)]; !ok || !res.Seen[s.url(w)] {
			t.Errorf("page %s not handed over or not seen; got %v", w, keys(pages))
		}
	}
	if len(c) != 1 || len(res.Duplicates) < 2 {
		t.Errorf("c.html?v=1 and ?v=2 (same content) gave pages %v, duplicates %v; want one page, the other a duplicate", c, res.Duplicates)
	}
	if got := res.Duplicates[s.url("/docs/canon-alt.html")]; got != s.url("/docs/a.html") || !strings.Contains(string(pages[s.url("/docs/a.html")].Body), "<h1>A ") {
		t.Errorf("canon-alt.html (rel=canonical a.html) duplicates %q, a.html is %.40q; want it collapsed into a.html, whose content is its own", got, pages[s.url("/docs/a.html")].Body)
	}
	for _, p := range []string{"/docs/secret/s.html", "/elsewhere/x.html", "/elsewhere/page.html", "/outside.html", "/docs/pic.png"} {
		if n := s.count(s.hits, p); n != 0 {
			t.Errorf("%s requested %d times; robots.txt, the scope or the link filter should have kept the crawl off it", p, n)
		}
	}
	if res.Disallowed != 1 {
		t.Errorf("Disallowed = %d, want 1 (secret/; all-private/ is disallowed only to other agents)", res.Disallowed)
	}
	if !res.Gone[s.url("/docs/missing.html")] || !res.MayDelete(s.url("/docs/missing.html")) {
		t.Errorf("missing.html (404): gone %v, may delete %v; want both", res.Gone, res.MayDelete(s.url("/docs/missing.html")))
	}
	if why := res.Failed[s.url("/docs/broken.html")]; !strings.Contains(why, "500") || res.MayDelete(s.url("/docs/broken.html")) {
		t.Errorf("broken.html (500): failed %q, may delete %v; want failed with its status, not deletable", why, res.MayDelete(s.url("/docs/broken.html")))
	}
	if to := res.Outside[s.url("/docs/away.html")]; to != s.url("/elsewhere/page.html") {
		t.Errorf("away.html redirects out of scope: Outside = %v", res.Outside)
	}
	if res.Seen[s.url("/docs/old.html")] || !res.Seen[s.url("/docs/new.html")] {
		t.Errorf("old.html → new.html: seen %v; want new.html only", res.SeenURLs())
	}
	if s.maxInflight > crawl.DefaultConcurrency {
		t.Errorf("the site answered %d requests at once; the crawl's concurrency is %d", s.maxInflight, crawl.DefaultConcurrency)
	}
	if p := pages[s.url("/docs/guide.md")]; p.Type != ragd.SourceMarkdown || !strings.Contains(string(p.Body), "# Guide") {
		t.Errorf("guide.md: type %q body %q", p.Type, p.Body)
	}
}

// TestCrawlConditional: a second crawl given the first's states costs a
// 304 per page with a validator and no full fetch of an unchanged page;
// a page without validators is fetched but known unchanged by its hash;
// after one page changes, a third crawl fetches just that one in full.
func TestCrawlConditional(t *testing.T) {
	s := docsSite(t)
	first, _, err := run(t, crawl.Options{Start: s.url("/docs/")})
	if err != nil {
		t.Fatal(err)
	}
	full1, _ := s.totals()
	second, res, err := run(t, crawl.Options{Start: s.url("/docs/"), Previous: states(first)})
	if err != nil {
		t.Fatal(err)
	}
	full2, nm2 := s.totals()
	if got := full2 - full1; got != 3 {
		t.Errorf("second crawl fetched %d pages in full; want 3: guide.md, which has no validators, and the two duplicates (c.html?v=, canon-alt.html), which are no page", got)
	}
	if nm2 != len(first)-1 || res.NotModified != nm2 {
		t.Errorf("second crawl: %d 304s served, %d counted; want %d (every page but guide.md; new.html through old.html's redirect)", nm2, res.NotModified, len(first)-1)
	}
	if !slices.Equal(keys(first), keys(second)) {
		t.Errorf("second crawl saw %v, first %v", keys(second), keys(first))
	}
	for u, p := range second {
		if !p.Unchanged || p.Body != nil {
			t.Errorf("%s: Unchanged %v with %d bytes; want unchanged, no body", u, p.Unchanged, len(p.Body))
		}
	}
	s.set("/docs/b.html", html, page("B, edited"))
	third, _, err := run(t, crawl.Options{Start: s.url("/docs/"), Previous: states(second)})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.count(s.full, "/docs/b.html"); n != 2 {
		t.Errorf("b.html fetched in full %d times over three crawls; want 2", n)
	}
	if p := third[s.url("/docs/b.html")]; p.Unchanged || !strings.Contains(string(p.Body), "edited") {
		t.Errorf("edited b.html: unchanged %v body %q", p.Unchanged, p.Body)
	}
	if p := third[s.url("/docs/a.html")]; !p.Unchanged {
		t.Errorf("a.html came back changed")
	}
}

func kindIs(err error, k ragd.ErrorKind) bool {
	var re *ragd.Error
	return errors.As(err, &re) && re.Kind == k
}

// TestCrawlBounds: each bound stops the crawl with an error naming its
// setting (page count, crawl time) or fails the one page (page size);
// MaxDepth stops following links.
func TestCrawlBounds(t *testing.T) {
	s := docsSite(t)
	_, _, err := run(t, crawl.Options{Start: s.url("/docs/"), MaxPages: 3})
	if !kindIs(err, ragd.KindTooLarge) || !strings.Contains(err.Error(), "max_pages (3)") {
		t.Errorf("MaxPages 3: %v; want a too-large error naming max_pages", err)
	}
	pages, _, err := run(t, crawl.Options{Start: s.url("/docs/"), MaxDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pages[s.url("/docs/deep/1.html")]; ok {
		t.Errorf("MaxDepth 1 reached deep/1.html (depth 2)")
	}
	if _, ok := pages[s.url("/docs/a.html")]; !ok {
		t.Errorf("MaxDepth 1 missed a.html (depth 1)")
	}
	_, res, err := run(t, crawl.Options{Start: s.url("/docs/"), MaxPageBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if why := res.Failed[s.url("/docs/a.html")]; !strings.Contains(why, "max_page_bytes (2000") {
		t.Errorf("a.html over MaxPageBytes: failed %q", why)
	}
	if _, _, err := run(t, crawl.Options{Start: s.url("/docs/"), MaxPageBytes: 100}); err == nil {
		t.Errorf("a start page over MaxPageBytes: no error")
	}
	s.set("/slow", html, "")
	_, _, err = run(t, crawl.Options{Start: s.url("/slow"), MaxTime: 300 * time.Millisecond})
	if !kindIs(err, ragd.KindTooLarge) || !strings.Contains(err.Error(), "max_time") {
		t.Errorf("a crawl past MaxTime: %v; want a too-large error naming max_time", err)
	}
}

// TestCrawlCannotSee: a start page that answers 404 or 503, a robots.txt
// that answers 500, a server that is down: each an error, no page handed
// over.
func TestCrawlCannotSee(t *testing.T) {
	s := docsSite(t)
	cases := []struct {
		name, start string
		setup       func()
		kind        ragd.ErrorKind
		says        string
	}{
		{"start 404", s.url("/docs/nothing/"), func() {}, ragd.KindInvalid, "answered HTTP 404"},
		{"start 503", s.url("/docs/"), func() { s.status["/docs/"] = http.StatusServiceUnavailable }, ragd.KindUnavailable, "answered HTTP 503"},
		{"robots 500", s.url("/docs/"), func() { delete(s.status, "/docs/"); s.status["/robots.txt"] = 500 }, ragd.KindUnavailable, "robots.txt answered HTTP 500"},
	}
	for _, c := range cases {
		s.mu.Lock()
		c.setup()
		s.mu.Unlock()
		pages, _, err := run(t, crawl.Options{Start: c.start})
		if !kindIs(err, c.kind) || !strings.Contains(err.Error(), c.says) || len(pages) != 0 {
			t.Errorf("%s: %v with %d pages; want kind %d saying %q, no page", c.name, err, len(pages), c.kind, c.says)
		}
	}
	down := s.url("/docs/")
	s.srv.CloseClientConnections()
	s.srv.Listener.Close()
	pages, _, err := run(t, crawl.Options{Start: down})
	if !kindIs(err, ragd.KindUnavailable) || len(pages) != 0 {
		t.Errorf("server down: %v with %d pages; want unavailable, no page", err, len(pages))
	}
}
