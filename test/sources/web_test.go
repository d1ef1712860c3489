package sources_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/website"
)

// addWebSource adds a web source and returns its id.
func addWebSource(t *testing.T, s *stack.Stack, body map[string]any) string {
	t.Helper()
	return addKind(t, s, ragd.SourceWeb, body)
}

// webPages are the page URLs of the namespace's documents from web
// sources.
func webPages(t *testing.T, s *stack.Stack) []string {
	t.Helper()
	return items(t, s, ragd.SourceWeb)
}

// harbour is a site of six pages under /docs/ — HTML, Markdown, text
// and PDF — with a page robots.txt keeps ragd from.
func harbour(t *testing.T) *website.Site {
	site := website.New(t)
	site.Set("/robots.txt", "text/plain", "User-agent: ragd\nDisallow: /docs/private/\n")
	site.Set("/docs/", website.HTML, website.Page("Harbour handbook", "How the harbour is run.",
		"anchors.html", "buoys.html", "charts.md", "log.txt", "tides.pdf", "private/keys.html"))
	site.Set("/docs/anchors.html", website.HTML, website.Page("Anchors", "The anchor chain is inspected every spring by the bosun."))
	site.Set("/docs/buoys.html", website.HTML, website.Page("Buoys", "Red buoys mark the port side of the channel."))
	site.Set("/docs/charts.md", "text/markdown", "# Charts\n\nCharts are corrected from the weekly notices to mariners.\n")
	site.Set("/docs/log.txt", "text/plain", "Deck log: entries are made every watch, signed by the officer.\n")
	site.Set("/docs/tides.pdf", "application/pdf", string(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Tide tables are printed for every month of the year.) Tj ET")))
	site.Set("/docs/private/keys.html", website.HTML, website.Page("Keys", "The key safe code."))
	return site
}

// A web source over REST: a dry run answers the plan; the sync indexes
// every page in scope (robots.txt's disallowed page never asked), each
// searchable and cited by its page URL; after one page changes and one
// is removed, the re-sync reads the changed page alone — the others
// answer 304 — deletes the removed page's document and leaves the rest.
// Deleting the source removes its documents and its crawl state.
func TestWebSyncReflectsEachChange(t *testing.T) {
	t.Parallel()
	site := harbour(t)
	s := start(t)
	id := addWebSource(t, s, map[string]any{"url": site.URL("/docs/"), "tags": []string{"harbour"}})
	pages := []string{site.URL("/docs/"), site.URL("/docs/anchors.html"), site.URL("/docs/buoys.html"),
		site.URL("/docs/charts.md"), site.URL("/docs/log.txt"), site.URL("/docs/tides.pdf")}

	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	var plan sourcesync.Plan
	decode(t, r.Body, &plan)
	if r.Status != http.StatusOK || !slices.Equal(plan.Added, pages) || !plan.Full {
		t.Fatalf("dry run: %d %s", r.Status, r.Body)
	}
	equal(t, "after the dry run", webPages(t, s), []string{})

	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || res.FilesAdded != 6 || res.FilesFailed != 0 {
		t.Fatalf("first sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "after the first sync", webPages(t, s), pages)
	if n := site.Count("/docs/private/keys.html").Hits; n != 0 {
		t.Fatalf("the page robots.txt disallows was asked %d times", n)
	}
	hit := searchTop(t, s, "anchor chain inspected bosun")
	doc := document(t, s, hit.Source)
	if doc.WebURL != site.URL("/docs/anchors.html") || doc.SourceType != ragd.SourceHTML || !slices.Equal(doc.Tags, []string{"harbour"}) {
		t.Fatalf("the top hit for the anchors: %+v, its document %+v", hit, doc)
	}
	for page, typ := range map[string]ragd.SourceType{"/docs/charts.md": ragd.SourceMarkdown, "/docs/log.txt": ragd.SourceText, "/docs/tides.pdf": ragd.SourcePDF} {
		if d := document(t, s, ragd.SourceItemURI(ragd.SourceWeb, site.URL("/docs/"), site.URL(page))); d.SourceType != typ || d.Chunks == 0 {
			t.Fatalf("%s: %+v; want a %s document with chunks", page, d, typ)
		}
	}

	site.Set("/docs/anchors.html", website.HTML, website.Page("Anchors", "The anchor chain is inspected every autumn by the harbour master."))
	site.Remove("/docs/buoys.html")
	site.Reset()
	job, res = sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || res.FilesChanged != 1 || res.FilesAdded != 0 || res.DocumentsDeleted != 1 || res.FilesUnchanged != 4 {
		t.Fatalf("second sync: %s %s %+v", job.Status, job.Error, res)
	}
	if c := site.Count(""); c.Full != 1 || c.NotModified != 4 {
		t.Fatalf("the second sync asked the site %+v; want the changed page in full and 4 answers of 304", c)
	}
	equal(t, "after the second sync", webPages(t, s), slices.Delete(slices.Clone(pages), 2, 3))
	if hit := searchTop(t, s, "harbour master autumn anchor"); hit.Source != doc.Source || !strings.Contains(hit.Text, "autumn") {
		t.Fatalf("the changed page's top hit: %+v", hit)
	}

	key := keyspace.New(s.Config.Redis.KeyPrefix).SourceState(id)
	if n, _ := s.Redis.Exists(context.Background(), key).Result(); n != 1 {
		t.Fatalf("no crawl state kept under %s", key)
	}
	if r := s.Do(t, "DELETE", "/sources/"+id, nil); r.Status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	equal(t, "after the source was deleted", webPages(t, s), []string{})
	if n, _ := s.Redis.Exists(context.Background(), key).Result(); n != 0 {
		t.Fatalf("the crawl state outlived its source")
	}
}

// searchTop is the first hit of query in the default namespace.
func searchTop(t *testing.T, s *stack.Stack, query string) struct{ Source, Text string } {
	t.Helper()
	r := s.Do(t, "POST", "/tools/rag_search", map[string]any{"query": query, "top_k": 1})
	var out struct {
		Results []struct{ Source, Text string } `json:"results"`
	}
	decode(t, r.Body, &out)
	if r.Status != http.StatusOK || len(out.Results) == 0 {
		t.Fatalf("search %q: %d %s", query, r.Status, r.Body)
	}
	return out.Results[0]
}

// A sync that cannot see the site — its start page answering 500 or
// 404 — fails and deletes nothing; a site with more pages than the
// source's max_pages is refused naming the bound; a sync deleting more
// than half of the documents stops unless force.
func TestWebSyncNeverDestroysWhatItCouldNotSee(t *testing.T) {
	t.Parallel()
	site := harbour(t)
	s := start(t)
	id := addWebSource(t, s, map[string]any{"url": site.URL("/docs/")})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	all := webPages(t, s)
	for _, code := range []int{http.StatusInternalServerError, http.StatusNotFound} {
		site.Status("/docs/", code)
		job, _ := sync(t, s, id, map[string]any{"force": true})
		if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "the crawl saw nothing") {
			t.Fatalf("start page answering %d: %s %q", code, job.Status, job.Error)
		}
		equal(t, "after the failed sync", webPages(t, s), all)
	}
	site.Status("/docs/", 0)

	if r := s.Do(t, "PATCH", "/sources/"+id, map[string]any{"max_pages": 3}); r.Status != http.StatusOK {
		t.Fatalf("PATCH max_pages: %d %s", r.Status, r.Body)
	}
	job, _ := sync(t, s, id, nil)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "more than max_pages (3)") {
		t.Fatalf("6 pages with max_pages 3: %s %q", job.Status, job.Error)
	}
	equal(t, "after the refused sync", webPages(t, s), all)
	s.Do(t, "PATCH", "/sources/"+id, map[string]any{"max_pages": 0})

	for _, p := range []string{"/docs/anchors.html", "/docs/buoys.html", "/docs/charts.md", "/docs/log.txt"} {
		site.Remove(p)
	}
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "4 of the source's 6 documents") {
		t.Fatalf("dry run deleting 4 of 6: %d %s", r.Status, r.Body)
	}
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobFailed || !strings.Contains(job.Error, "more than half") {
		t.Fatalf("sync deleting 4 of 6: %s %q", job.Status, job.Error)
	}
	equal(t, "after the stopped sync", webPages(t, s), all)
	job, res := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobCompleted || res.DocumentsDeleted != 4 {
		t.Fatalf("forced sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "after the forced sync", webPages(t, s), []string{site.URL("/docs/"), site.URL("/docs/tides.pdf")})
}

// What POST /sources refuses of a web source, naming the field; and with
// ingest.allow_private_urls off, a site on a loopback address is refused
// at the sync, as URL ingest refuses it, and never asked.
func TestWebSourceRefusals(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true) // allow_private_urls off
	for _, c := range []struct {
		body map[string]any
		says string
	}{
		{map[string]any{"url": "https://example.org/docs/#intro"}, "no fragment"},
		{map[string]any{"url": "https://me:pw@example.org/docs/"}, "no user or password"},
		{map[string]any{"url": "ftp://example.org/docs/"}, "must be http:// or https://"},
		{map[string]any{"url": "https://example.org/docs/", "max_pages": 501}, "sources.web_max_pages (500)"},
		{map[string]any{"url": "https://example.org/docs/", "max_depth": 11}, "sources.web_max_depth (10)"},
		{map[string]any{"url": "https://example.org/docs/", "ref": "main"}, "ref is not a field of web sources"},
		{map[string]any{"url": "https://example.org/docs/", "include": []string{"*.html"}}, "include is not a field of web sources"},
		{map[string]any{"url": "https://example.org/docs/", "access_key": "env:AK"}, "access_key is not a field of web sources"},
	} {
		c.body["kind"] = "web"
		if r := s.Do(t, "POST", "/sources", c.body); r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.says) {
			t.Errorf("%v: %d %s; want 422 saying %q", c.body, r.Status, r.Body, c.says)
		}
	}
	site := harbour(t)
	id := addWebSource(t, s, map[string]any{"url": site.URL("/docs/")})
	if r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true}); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "allow_private_urls") {
		t.Errorf("dry run of a loopback site: %d %s", r.Status, r.Body)
	}
	job, _ := sync(t, s, id, nil)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "allow_private_urls") {
		t.Errorf("sync of a loopback site: %s %q", job.Status, job.Error)
	}
	if c := site.Count("/docs/"); c.Hits != 0 || site.Count("/robots.txt").Hits != 0 {
		t.Errorf("the refused site was asked: %+v", c)
	}
}
