package crawl_test

import (
	"context"
	"fmt"
	"testing"

	"ragd/internal/ingest/crawl"
)

// BenchmarkCrawl500 crawls a generated site of 500 linked pages (10 per
// page, served by a real HTTP server), with no delay and 4 requests at
// once; pages/s is the crawl's own rate, parsing and indexing left out.
func BenchmarkCrawl500(b *testing.B) {
	s := newSite(b)
	s.set("/robots.txt", "text/plain", "")
	for i := range 500 {
		var links []string
		for j := 1; j <= 10; j++ {
			links = append(links, fmt.Sprintf("/site/p%d.html", (i*10+j)%500))
		}
		s.set(fmt.Sprintf("/site/p%d.html", i), html, page(fmt.Sprintf("Page %d", i), links...))
	}
	b.ResetTimer()
	for range b.N {
		n := 0
		_, err := crawl.Crawl(context.Background(), fetcher(), crawl.Options{Start: s.url("/site/p0.html"), Delay: -1, Concurrency: 4},
			func(crawl.Page) error { n++; return nil })
		if err != nil || n != 500 {
			b.Fatalf("crawl: %v, %d pages", err, n)
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "pages/s")
}
