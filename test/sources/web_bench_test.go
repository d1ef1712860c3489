package sources_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/website"
)

// webBenchPages is the size of BenchmarkWebResync's site.
const webBenchPages = 200

// BenchmarkWebResync: a web source of a 200-page site (linked from its
// start page) is synced, then synced again unchanged, each round into a
// namespace of its own. The re-sync must cost one 304 per page, no page
// read in full and no document job (nothing embedded); the benchmark
// reports both syncs' times and their ratio. The crawl's delay is off
// (sources.web_delay 0), its concurrency the default 2.
func BenchmarkWebResync(b *testing.B) {
	site := website.New(b)
	links := make([]string, webBenchPages-1)
	for i := range links {
		links[i] = fmt.Sprintf("p%03d.html", i)
		site.Set("/docs/"+links[i], website.HTML, website.Page(fmt.Sprintf("Page %d", i),
			fmt.Sprintf("Section %d of the harbour manual describes berth %d, its depth of %d metres and the tug it needs.", i, i, 5+i%20)))
	}
	site.Set("/docs/", website.HTML, website.Page("Manual", "The harbour manual.", links...))
	cfg := stack.Config(b)
	cfg.Ingest.AllowPrivateURLs = true
	cfg.Worker.MaxRetries = 0
	cfg.Sources.WebDelay = 0
	s := stack.Start(b, cfg, true)
	var first, again time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := s.Do(b, "POST", "/sources", map[string]any{"kind": "web", "url": site.URL("/docs/"), "kb_name": fmt.Sprintf("web%d", i)})
		var src ragd.Source
		decode(b, r.Body, &src)
		t0 := time.Now()
		if res := benchSync(b, s, src.ID); res.FilesAdded != webBenchPages {
			b.Fatalf("first sync: %+v", res)
		}
		t1 := time.Now()
		site.Reset()
		res := benchSync(b, s, src.ID)
		again += time.Since(t1)
		first += t1.Sub(t0)
		c := site.Count("")
		if res.FilesUnchanged != webBenchPages || res.FilesAdded+res.FilesChanged != 0 || res.ChunksIndexed != 0 ||
			c.NotModified != webBenchPages || c.Full != 0 {
			b.Fatalf("the unchanged re-sync: %+v, the site asked %+v", res, c)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "first-ms/op")
	b.ReportMetric(float64(again.Milliseconds())/float64(b.N), "resync-ms/op")
	b.ReportMetric(float64(again)/float64(first), "resync/first")
	b.ReportMetric(webBenchPages, "304s/resync")
}

// benchSync syncs the source and waits for its job, which must complete.
func benchSync(b *testing.B, s *stack.Stack, id string) ragd.DirectoryResult {
	b.Helper()
	r := s.Do(b, "POST", "/sources/"+id+"/sync", map[string]any{})
	if r.Status != http.StatusAccepted {
		b.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	var e library.Enqueued
	decode(b, r.Body, &e)
	job := s.WaitJob(b, *e.JobID, 5*time.Minute)
	var res ragd.DirectoryResult
	if job.Status != ragd.JobCompleted || job.Result == nil {
		b.Fatalf("sync: %s %s", job.Status, job.Error)
	}
	decode(b, job.Result, &res)
	return res
}
