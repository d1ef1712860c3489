package websync_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/jobs/websync"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/website"
)

const ns = "docs"

// newSyncer is a web syncer on the test Redis whose fetcher treats every
// address as public but 127.0.0.2 (the guard's test setting).
func newSyncer(t *testing.T) *websync.Syncer {
	t.Helper()
	rdb := testenv.RedisClient(t, testenv.RedisURL(t))
	keys := keyspace.New("test:" + testenv.Unique(t, "W"))
	fetcher := guard.BlockingOnly(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") })
	return &websync.Syncer{UploadsDir: t.TempDir(), Fetcher: fetcher, Registry: registry.New(rdb, keys),
		KV: kv.New(rdb), Keys: keys, MaxFileBytes: 1 << 20,
		Limits: websync.Limits{MaxPages: 50, MaxDepth: 5, MaxPageBytes: 1 << 20, MaxTime: time.Minute, Concurrency: 2}}
}

func source(start string) ragd.Source {
	return ragd.Source{ID: "src_" + strings.ReplaceAll(start[len(start)-6:], "/", "_"), Namespace: ns, Kind: ragd.SourceWeb, URL: start}
}

// apply does what the worker does with a plan, the document jobs
// standing in as registry records: the deleted documents removed, each
// staged page recorded as its document unless failing says its job
// failed, then Synced.
func apply(t *testing.T, s *websync.Syncer, p *sourcesync.Plan, failing ...string) []sourcesync.File {
	t.Helper()
	ctx := context.Background()
	for _, d := range p.Deleted {
		if err := s.Registry.Delete(ctx, ns, d.DocumentID); err != nil {
			t.Fatal(err)
		}
	}
	var files []sourcesync.File
	for _, item := range append(append([]string{}, p.Added...), p.Changed...) {
		f, err := s.Stage(ctx, p, item)
		if err != nil {
			t.Fatalf("stage %s: %v", item, err)
		}
		files = append(files, f)
		if slices.Contains(failing, item) {
			continue
		}
		doc := ragd.Document{ID: ragd.DocumentID(ns, f.Source), Namespace: ns, Source: f.Source, SourceType: f.Type,
			ContentHash: f.Upload, RawHash: f.Upload, WebURL: f.WebURL, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := s.Registry.Put(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synced(ctx, p); err != nil {
		t.Fatal(err)
	}
	return files
}

func plan(t *testing.T, s *websync.Syncer, src ragd.Source, force bool) *sourcesync.Plan {
	t.Helper()
	p, err := s.Plan(context.Background(), src, force)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func deleted(p *sourcesync.Plan) []string {
	out := []string{}
	for _, d := range p.Deleted {
		page, _ := ragd.SourceItem(ragd.SourceWeb, d.Source)
		out = append(out, page)
	}
	return out
}

// handbook is a site of four pages under /docs/: HTML, Markdown and PDF.
func handbook(t *testing.T) *website.Site {
	site := website.New(t)
	site.Set("/docs/", website.HTML, website.Page("Handbook", "The crew's handbook.", "a.html", "b.md", "c.pdf", "/elsewhere.html"))
	site.Set("/docs/a.html", website.HTML, website.Page("Anchors", "The anchor chain is inspected every spring."))
	site.Set("/docs/b.md", "text/markdown", "# Buoys\n\nRed buoys mark the port side.\n")
	site.Set("/docs/c.pdf", "application/pdf", string(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Charts are corrected weekly.) Tj ET")))
	site.Set("/elsewhere.html", website.HTML, website.Page("Elsewhere", "Out of scope."))
	return site
}

// The first plan adds every page in scope, each staged with its bytes,
// a file name of its type and its URL as citation; a second plan of the
// unchanged site costs one 304 per page and reads nothing; a changed
// page is changed, a removed one deleted, the rest unchanged; a page
// whose document job failed is read in full and added again.
func TestPlanFollowsTheSite(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	src := source(site.URL("/docs/"))
	p := plan(t, s, src, false)
	pages := []string{site.URL("/docs/"), site.URL("/docs/a.html"), site.URL("/docs/b.md"), site.URL("/docs/c.pdf")}
	equal(t, "added", p.Added, pages)
	if !p.Full || len(p.Changed) != 0 || p.Unchanged != 0 || len(p.Deleted) != 0 {
		t.Fatalf("first plan: %+v", p)
	}
	files := apply(t, s, p, site.URL("/docs/b.md"))
	want := map[string][2]string{"/docs/": {"index.html", "html"}, "/docs/a.html": {"a.html", "html"},
		"/docs/b.md": {"b.md", "md"}, "/docs/c.pdf": {"c.pdf", "pdf"}}
	for _, f := range files {
		path := strings.TrimPrefix(f.Item, site.URL(""))
		if w := want[path]; f.Filename != w[0] || string(f.Type) != w[1] || f.WebURL != f.Item ||
			f.Source != ragd.SourceItemURI(ragd.SourceWeb, src.URL, f.Item) {
			t.Errorf("staged %s: %+v; want %v", path, f, w)
		}
		b, err := os.ReadFile(filepath.Join(s.UploadsDir, f.Upload))
		if err != nil || ragd.ContentHash(b) != f.Upload || (path == "/docs/a.html" && !strings.Contains(string(b), "anchor chain")) {
			t.Errorf("the upload of %s: %v", path, err)
		}
	}

	site.Reset()
	p = plan(t, s, src, false)
	equal(t, "added again: the page whose job failed", p.Added, []string{site.URL("/docs/b.md")})
	if p.Full || len(p.Changed) != 0 || p.Unchanged != 3 || len(p.Deleted) != 0 {
		t.Fatalf("plan of the unchanged site: %+v", p)
	}
	if c := site.Count(""); c.NotModified != 3 || c.Full != 1 {
		t.Fatalf("the unchanged site was asked %+v; want 3 answers of 304 and b.md in full", c)
	}
	apply(t, s, p)

	site.Set("/docs/a.html", website.HTML, website.Page("Anchors", "The anchor chain is inspected every autumn now."))
	site.Remove("/docs/b.md")
	site.Reset()
	p = plan(t, s, src, false)
	equal(t, "changed", p.Changed, []string{site.URL("/docs/a.html")})
	equal(t, "deleted", deleted(p), []string{site.URL("/docs/b.md")})
	if len(p.Added) != 0 || p.Unchanged != 2 || site.Count("").NotModified != 2 {
		t.Fatalf("plan after a change and a removal: %+v, site asked %+v", p, site.Count(""))
	}
}

// A crawl that cannot see the site plans nothing and deletes nothing:
// a start page answering 500 or 404, a start page redirecting to a
// private address (which is never asked); nor is the kept state touched.
func TestFailedCrawlPlansNothing(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	src := source(site.URL("/docs/"))
	apply(t, s, plan(t, s, src, false))
	ctx := context.Background()
	before, _, _ := s.KV.Get(ctx, s.Keys.SourceState(src.ID))

	for _, code := range []int{http.StatusInternalServerError, http.StatusNotFound} {
		site.Status("/docs/", code)
		p, err := s.Plan(ctx, src, true)
		if err == nil || p != nil || !strings.Contains(err.Error(), "the crawl saw nothing") {
			t.Errorf("start page answering %d: %+v, %v; want the plan failed", code, p, err)
		}
	}
	if code := ragd.KindOf(func() error { _, err := s.Plan(ctx, src, false); return err }()); code != ragd.KindInvalid {
		t.Errorf("a 404 start page: %v; want invalid (a retry would not help)", code)
	}

	private := website.NewOn(t, "127.0.0.2")
	private.Set("/docs/", website.HTML, website.Page("Internal", "Not for the crawler."))
	site.Redirect("/docs/", private.URL("/docs/"))
	_, err := s.Plan(ctx, src, true)
	if ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "127.0.0.2") {
		t.Errorf("a start page redirecting to a private address: %v; want the guard's refusal", err)
	}
	if n := private.Count("/docs/").Hits; n != 0 {
		t.Errorf("the private site was asked %d times", n)
	}
	if after, _, _ := s.KV.Get(ctx, s.Keys.SourceState(src.ID)); string(after) != string(before) {
		t.Errorf("a failed plan changed the kept state")
	}
	if refs, _ := s.Documents(ctx, src); len(refs) != 4 {
		t.Errorf("documents after the failed plans: %d, want 4", len(refs))
	}
}

// A plan deleting more than half of the source's documents stops,
// naming the counts, unless force.
func TestPlanDeletingMoreThanHalfStops(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	src := source(site.URL("/docs/"))
	apply(t, s, plan(t, s, src, false))
	for _, p := range []string{"/docs/a.html", "/docs/b.md", "/docs/c.pdf"} {
		site.Remove(p)
	}
	_, err := s.Plan(context.Background(), src, false)
	if ragd.KindOf(err) != ragd.KindConflict || !strings.Contains(err.Error(), "3 of the source's 4 documents") {
		t.Fatalf("plan deleting 3 of 4: %v", err)
	}
	p := plan(t, s, src, true)
	if len(p.Deleted) != 3 || !p.Full || len(p.Changed) != 1 {
		t.Fatalf("forced plan: %+v", p)
	}
}

// robots.txt keeps the crawl from a page (never asked); a site with
// more pages in scope than the source's max_pages is refused, naming
// the bound; max_depth lowers how deep links are followed.
func TestPlanBounds(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	site.Set("/robots.txt", "text/plain", "User-agent: *\nDisallow: /docs/c.pdf\n")
	src := source(site.URL("/docs/"))
	p := plan(t, s, src, false)
	equal(t, "added with c.pdf disallowed", p.Added, []string{site.URL("/docs/"), site.URL("/docs/a.html"), site.URL("/docs/b.md")})
	if n := site.Count("/docs/c.pdf").Hits; n != 0 {
		t.Errorf("the disallowed page was asked %d times", n)
	}
	src.MaxPages = 2
	_, err := s.Plan(context.Background(), src, false)
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "more than max_pages (2)") {
		t.Errorf("3 pages with max_pages 2: %v", err)
	}
	site.Set("/docs/a.html", website.HTML, website.Page("Anchors", "Deeper.", "deep.html"))
	site.Set("/docs/deep.html", website.HTML, website.Page("Deep", "Two links down."))
	src.MaxPages, src.MaxDepth = 0, 1
	p = plan(t, s, src, false)
	if slices.Contains(p.Added, site.URL("/docs/deep.html")) || site.Count("/docs/deep.html").Hits != 0 {
		t.Errorf("max_depth 1 followed a link two deep: %v", p.Added)
	}
}

// Check refuses what a web source may not say, naming the field.
func TestCheck(t *testing.T) {
	t.Parallel()
	s := newSyncer(t)
	ok := ragd.Source{Kind: ragd.SourceWeb, URL: "https://docs.example.org/guide/"}
	if err := s.Check(context.Background(), ok); err != nil {
		t.Fatalf("a valid source: %v", err)
	}
	for field, change := range map[string]func(*ragd.Source){
		"url":        func(s *ragd.Source) { s.URL = "https://docs.example.org/guide/#top" },
		"url ":       func(s *ragd.Source) { s.URL = "https://me:pw@docs.example.org/" },
		"url  ":      func(s *ragd.Source) { s.URL = "ftp://docs.example.org/" },
		"url   ":     func(s *ragd.Source) { s.URL = "" },
		"max_pages":  func(s *ragd.Source) { s.MaxPages = 51 },
		"max_depth":  func(s *ragd.Source) { s.MaxDepth = -1 },
		"ref":        func(s *ragd.Source) { s.Ref = "main" },
		"include":    func(s *ragd.Source) { s.Include = []string{"*.html"} },
		"exclude":    func(s *ragd.Source) { s.Exclude = []string{"drafts/"} },
		"ssh_key":    func(s *ragd.Source) { s.SSHKey = "env:KEY" },
		"endpoint":   func(s *ragd.Source) { s.Endpoint = "https://s3.example.org" },
		"region":     func(s *ragd.Source) { s.Region = "eu-west-1" },
		"access_key": func(s *ragd.Source) { s.AccessKey = "env:AK" },
		"secret_key": func(s *ragd.Source) { s.SecretKey = "env:SK" },
	} {
		src := ok
		change(&src)
		err := s.Check(context.Background(), src)
		var re *ragd.Error
		if !errors.As(err, &re) || re.Kind != ragd.KindInvalid || len(re.Fields) != 1 || re.Fields[0].Loc[1] != strings.TrimSpace(field) {
			t.Errorf("%s: %v; want invalid naming %s", field, err, strings.TrimSpace(field))
		}
	}
}

// Synced keeps the crawl's state under the source's state key and
// Forget removes it.
func TestStateKeptAndForgotten(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	src := source(site.URL("/docs/"))
	ctx := context.Background()
	apply(t, s, plan(t, s, src, false))
	b, ok, err := s.KV.Get(ctx, s.Keys.SourceState(src.ID))
	if err != nil || !ok || !strings.Contains(string(b), `"etag"`) || !strings.Contains(string(b), site.URL("/docs/a.html")) {
		t.Fatalf("kept state: %s %v %v", b, ok, err)
	}
	if err := s.Forget(ctx, src); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.KV.Get(ctx, s.Keys.SourceState(src.ID)); ok {
		t.Fatal("the state outlived Forget")
	}
}

// A page that cannot be read — larger than the page bound, or answering
// 503 — is failed, never deleted; the state kept of it stays, so the
// next plan asks for it conditionally, and reads it once it can.
func TestUnreadablePagesAreKept(t *testing.T) {
	t.Parallel()
	site, s := handbook(t), newSyncer(t)
	src := source(site.URL("/docs/"))
	apply(t, s, plan(t, s, src, false))
	site.Set("/docs/a.html", website.HTML, website.Page("Anchors", strings.Repeat("The anchor chain grew. ", 200)))
	site.Status("/docs/b.md", http.StatusServiceUnavailable)
	s.Limits.MaxPageBytes = 2000
	p := plan(t, s, src, false)
	a, b := site.URL("/docs/a.html"), site.URL("/docs/b.md")
	if !strings.Contains(p.Failed[a], "max_page_bytes (2000 bytes)") || !strings.Contains(p.Failed[b], "503") ||
		len(p.Deleted) != 0 || len(p.Changed) != 0 || p.Unchanged != 2 {
		t.Fatalf("plan with a page too large and one answering 503: %+v", p)
	}
	apply(t, s, p)
	s.Limits.MaxPageBytes = 1 << 20
	site.Status("/docs/b.md", 0)
	site.Reset()
	p = plan(t, s, src, false)
	equal(t, "changed once readable", p.Changed, []string{a})
	if p.Unchanged != 3 || len(p.Added) != 0 || site.Count("/docs/b.md").NotModified != 1 {
		t.Fatalf("plan once both can be read: %+v; b.md asked %+v", p, site.Count("/docs/b.md"))
	}
}
