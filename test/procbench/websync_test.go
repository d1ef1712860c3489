package procbench

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/website"
)

// webPages is how many pages the benchmark's site has: an index page
// linking 499 real Markdown files served as text/markdown.
const webPages = 500

// BenchmarkProcessWebSync measures a web source's first sync by ragd
// running as its own process, the site a real HTTP server on loopback:
// 499 real Markdown files from the module cache served as pages and an
// HTML index linking them, a fresh namespace each round. Its floor is
// the same ragd indexing the same 500 files as a directory (POST
// /tools/rag_index_directory); rounds alternate which goes first. Then a re-sync of the
// unchanged site (500 answers of 304) against a directory sync of the
// unchanged files. The crawl runs with sources.web_delay 0 (the 100 ms
// default spaces 500 requests over 50 s, politeness no disk read pays)
// and the default concurrency of 2. Target: a first sync ≥ 0.8× the
// directory's rate.
func BenchmarkProcessWebSync(b *testing.B) {
	r := startRagd(b, map[string]string{"RAGD_INGEST_ALLOW_PRIVATE_URLS": "true", "RAGD_SOURCES_WEB_DELAY": "0s"})
	site := website.New(b)
	dir := filepath.Join(r.Root, "site")
	names := make([]string, 0, webPages-1)
	for i, src := range readmes(b, webPages-1) {
		name := fmt.Sprintf("%03d-%s.md", i, filepath.Base(filepath.Dir(src)))
		body := string(testenv.ReadFile(b, src))
		site.Set("/docs/"+name, "text/markdown; charset=utf-8", body)
		testenv.WriteFile(b, filepath.Join(dir, name), body)
		names = append(names, name)
	}
	index := website.Page("Module READMEs", "The READMEs of the modules ragd is built from.", names...)
	site.Set("/docs/", website.HTML, index)
	testenv.WriteFile(b, filepath.Join(dir, "index.html"), index)
	client := &http.Client{}
	rounds := syncRounds{what: "web sync", items: fmt.Sprintf("%d pages", webPages), resync: "unchanged (all 304)"}
	for round := range max(b.N, 3) {
		kb := fmt.Sprintf("w%d", round)
		var src ragd.Source
		post(b, client, r.URL+"/sources", map[string]any{"kind": "web", "url": site.URL("/docs/"), "kb_name": kb}, &src)
		syncWeb := func() time.Duration {
			d, _ := timed(b, client, r.URL+"/sources/"+src.ID+"/sync", map[string]any{}, r.URL)
			return d
		}
		syncDir := func() time.Duration {
			d, _ := timed(b, client, r.URL+"/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "d" + kb, "sync": true}, r.URL)
			return d
		}
		var webTime, dirTime time.Duration
		if round%2 == 0 { // which goes first alternates
			webTime, dirTime = syncWeb(), syncDir()
		} else {
			dirTime, webTime = syncDir(), syncWeb()
		}
		site.Reset()
		reWeb, reDir := syncWeb(), syncDir()
		if c := site.Count(""); c.NotModified != webPages || c.Full != 0 {
			b.Fatalf("the unchanged re-sync asked the site %+v; want %d answers of 304", c, webPages)
		}
		rounds.add(webTime, dirTime, reWeb, reDir)
	}
	rounds.report(b, "web source sync from a loopback site, ragd's own process", "web/dir-ratio")
}
