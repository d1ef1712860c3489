package websearch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// searxAnswerJSON follows SearXNG's documented format=json answer (trimmed);
// the test servers below stand in for a SearXNG instance.
const searxAnswerJSON = `{
  "query": "weaviate hybrid search",
  "number_of_results": 0,
  "results": [
    {"url": "https://weaviate.io/developers/weaviate/search/hybrid", "title": "Hybrid search | Weaviate",
     "content": "Hybrid search combines the results of a vector search and a keyword (BM25F) search.",
     "engine": "duckduckgo", "parsed_url": ["https", "weaviate.io", "/developers/weaviate/search/hybrid", "", "", ""],
     "template": "default.html", "engines": ["duckduckgo", "google"], "positions": [1, 1], "score": 4.0, "category": "general"},
    {"url": "", "title": "no url", "content": "skipped", "engine": "bing"},
    {"url": "https://weaviate.io/blog/hybrid-search-explained", "title": "Hybrid Search Explained", "content": " Fusion of BM25 and vectors. ", "engine": "google"},
    {"url": "https://example.com/3", "title": "Third", "content": "", "engine": "brave"}
  ],
  "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["weaviate bm25"], "unresponsive_engines": []
}`

func TestSearXNGMapsResultsAndSendsParams(t *testing.T) {
	var got url.Values
	var path string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got, path = r.URL.Query(), r.URL.Path
		reply(200, searxAnswerJSON)(w, r)
	})
	p, err := NewSearXNG(srv.URL+"/searxng/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Search(context.Background(), "weaviate hybrid search", 2)
	if err != nil {
		t.Fatal(err)
	}
	if path != "/searxng/search" || got.Get("q") != "weaviate hybrid search" || got.Get("format") != "json" {
		t.Fatalf("request %s ? %v", path, got)
	}
	want := []Result{
		{"Hybrid search | Weaviate", "https://weaviate.io/developers/weaviate/search/hybrid", "Hybrid search combines the results of a vector search and a keyword (BM25F) search."},
		{"Hybrid Search Explained", "https://weaviate.io/blog/hybrid-search-explained", "Fusion of BM25 and vectors."},
	}
	if len(res) != 2 || res[0] != want[0] || res[1] != want[1] {
		t.Fatalf("got %+v\nwant %+v", res, want)
	}
	all, _ := p.Search(context.Background(), "q", 20)
	if len(all) != 3 {
		t.Fatalf("max 20: got %d results, want the 3 with a url", len(all))
	}
}

func TestSearXNGEmptyResults(t *testing.T) {
	srv := newServer(t, reply(200, `{"query": "zzqx", "number_of_results": 0, "results": [], "unresponsive_engines": []}`))
	p, _ := NewSearXNG(srv.URL, Options{})
	res, err := p.Search(context.Background(), "zzqx", 5)
	if err != nil || res == nil || len(res) != 0 {
		t.Fatalf("got %v, %v", res, err)
	}
}

func TestSearXNGHTTPErrors(t *testing.T) {
	cases := []struct {
		status    int
		body      string
		message   string
		transient bool
	}{
		{403, "<!DOCTYPE html><html><body>403 Forbidden</body></html>", "search.formats", false},
		{401, "Unauthorized\n", "Unauthorized", false},
		{429, "Too Many Requests", "limiter", true},
		{502, "<html>Bad Gateway</html>", "Bad Gateway", true},
	}
	for _, c := range cases {
		srv := newServer(t, reply(c.status, c.body))
		p, _ := NewSearXNG(srv.URL, Options{})
		_, err := p.Search(context.Background(), "q", 5)
		var se *StatusError
		if !errors.As(err, &se) || se.Status != c.status || !strings.Contains(err.Error(), c.message) {
			t.Errorf("HTTP %d: got %v; want a StatusError saying %q", c.status, err, c.message)
		}
		if IsTransient(err) != c.transient {
			t.Errorf("HTTP %d: transient = %v, want %v", c.status, IsTransient(err), c.transient)
		}
	}
}

func TestSearXNGMalformedJSON(t *testing.T) {
	srv := newServer(t, reply(200, `<html>not json</html>`))
	p, _ := NewSearXNG(srv.URL, Options{})
	_, err := p.Search(context.Background(), "q", 5)
	if err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("got %v", err)
	}
}

func TestSearXNGSlowAnswerTimesOutAndHidesPassword(t *testing.T) {
	srv := newServer(t, stall)
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("ragd", "hunter2-secret")
	p, err := NewSearXNG(u.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Search(ctx, "q", 5)
	if !errors.Is(err, context.DeadlineExceeded) || !IsTransient(err) {
		t.Fatalf("got %v; want a transient deadline error", err)
	}
	assertNoSecret(t, err, "hunter2-secret")
}

func TestNewSearXNGRejectsBadURLs(t *testing.T) {
	for _, raw := range []string{"", "searx.local", "ftp://searx.local", "http://", "://x", "http://u:topsecret@[::1"} {
		p, err := NewSearXNG(raw, Options{})
		if p != nil || invalidField(err) != "searxng_url" {
			t.Errorf("NewSearXNG(%q) = %v, %v; want an invalid searxng_url", raw, p, err)
		}
		if err != nil && strings.Contains(err.Error(), "topsecret") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}
