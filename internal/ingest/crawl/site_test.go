package crawl_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"ragd/internal/ingest/guard"
)

// site is a real HTTP server (net/http on a loopback port) serving a
// generated documentation site, counting what it is asked.
type site struct {
	srv *httptest.Server
	mu  sync.Mutex
	// hits counts requests by path, full the 200s by path, notModified
	// the 304s.
	hits, full  map[string]int
	notModified int
	// pages are the bodies by path (the query is part of the page's name
	// only when listed so), with their content type.
	pages map[string]string
	types map[string]string
	// redirects are path → Location; status are path → an error status.
	redirects map[string]string
	status    map[string]int
	// validators: "etag", "lastmod" or "" (none), by path; default etag.
	validators map[string]string
	block      chan struct{} // a path "/slow" waits on it
	// inflight counts requests being answered, maxInflight its peak.
	inflight, maxInflight int
}

// fetcher is the guard the tests crawl with: every address public but
// 127.0.0.2, the guard's own private-address test setting.
func fetcher() *guard.Fetcher {
	return guard.BlockingOnly(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") })
}

func newSite(t testing.TB) *site {
	s := &site{hits: map[string]int{}, full: map[string]int{}, pages: map[string]string{}, types: map[string]string{},
		redirects: map[string]string{}, status: map[string]int{}, validators: map[string]string{}, block: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() { close(s.block); s.srv.Close() })
	return s
}

// listenOn serves h on a loopback address of its own (127.0.0.2).
func listenOn(t *testing.T, addr string, h http.Handler) *httptest.Server {
	l, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v (Linux routes all of 127.0.0.0/8 to lo)", addr, err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func (s *site) url(p string) string { return s.srv.URL + p }

func (s *site) set(p, ctype, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[p], s.types[p] = body, ctype
}

func (s *site) count(m map[string]int, p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m[p]
}

func (s *site) totals() (full, notModified int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, n := range s.full {
		if p != "/robots.txt" && !strings.HasSuffix(p, ".xml") {
			full += n
		}
	}
	return full, s.notModified
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("User-Agent"), "ragd/") {
		http.Error(w, "not ragd's agent", http.StatusBadRequest)
		return
	}
	key := r.URL.Path
	s.mu.Lock()
	s.inflight++
	s.maxInflight = max(s.maxInflight, s.inflight)
	defer func() { s.mu.Lock(); s.inflight--; s.mu.Unlock() }()
	s.hits[key]++
	if _, ok := s.pages[r.URL.RequestURI()]; ok {
		key = r.URL.RequestURI()
	}
	body, ok := s.pages[key]
	ctype, loc, code, val := s.types[key], s.redirects[r.URL.Path], s.status[r.URL.Path], s.validators[key]
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/slow":
		<-s.block
		return
	case loc != "":
		http.Redirect(w, r, loc, http.StatusFound)
		return
	case code != 0:
		http.Error(w, "status", code)
		return
	case !ok:
		http.NotFound(w, r)
		return
	}
	s.respond(w, r, key, ctype, body, val)
}

// respond answers with the page's validators, 304 when the request's
// match.
func (s *site) respond(w http.ResponseWriter, r *http.Request, key, ctype, body, val string) {
	sum := sha256.Sum256([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	lastmod := "Mon, 01 Jun 2026 10:00:00 GMT"
	if val == "lastmod" {
		lastmod = fmt.Sprintf("Mon, 01 Jun 2026 10:%02d:00 GMT", len(body)%60)
	}
	hit := false
	switch val {
	case "", "etag":
		w.Header().Set("ETag", etag)
		hit = r.Header.Get("If-None-Match") == etag
	case "lastmod":
		w.Header().Set("Last-Modified", lastmod)
		hit = r.Header.Get("If-Modified-Since") == lastmod
	}
	s.mu.Lock()
	if hit {
		s.notModified++
	} else {
		s.full[key]++
	}
	s.mu.Unlock()
	if hit {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", ctype)
	fmt.Fprint(w, body)
}

const html = "text/html; charset=utf-8"

func page(title string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><h1>%s</h1>", title, title)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	b.WriteString("</body></html>")
	return b.String()
}

// docsSite is the generated site most tests crawl from /docs/.
func docsSite(t *testing.T) *site {
	s := newSite(t)
	s.set("/robots.txt", "text/plain", "User-agent: *\nDisallow: /docs/all-private/\n\nUser-agent: ragd\nDisallow: /docs/secret/\n\nSitemap: "+s.url("/docs-sitemap.xml")+"\n")
	s.set("/docs-sitemap.xml", "application/xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>`+s.url("/docs-pages.xml")+`</loc></sitemap></sitemapindex>`)
	s.set("/docs-pages.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>`+s.url("/docs/only-in-sitemap.html")+`</loc></url><url><loc>`+s.url("/outside.html")+`</loc></url></urlset>`)
	s.set("/docs/", html, page("Docs", "a.html", "b.html", "a.html?utm_source=mail#top", "c.html?v=1", "c.html?v=2",
		"secret/s.html", "all-private/p.html", "missing.html", "old.html", "away.html", "/elsewhere/x.html",
		"canon-alt.html", "guide.md", "broken.html", "pic.png", "mailto:x@example.com", s.url("/docs/b.html")))
	s.set("/docs/a.html", html, page("A "+strings.Repeat("long ", 600), "deep/1.html"))
	s.set("/docs/b.html", html, page("B"))
	s.validators["/docs/b.html"] = "lastmod"
	s.set("/docs/c.html", html, page("C, whatever its query"))
	s.set("/docs/deep/1.html", html, page("Deep 1"))
	s.set("/docs/secret/s.html", html, page("Secret"))
	s.set("/docs/all-private/p.html", html, page("Only others may not"))
	s.set("/docs/new.html", html, page("New"))
	s.set("/docs/only-in-sitemap.html", html, page("Sitemap only"))
	s.set("/docs/canon-alt.html", html, `<html><head><link rel="canonical" href="a.html"></head><body>Print version of A</body></html>`)
	s.set("/docs/guide.md", "text/markdown", "# Guide\n\nMarkdown page.\n")
	s.validators["/docs/guide.md"] = "none"
	s.set("/docs/pic.png", "image/png", "\x89PNG")
	s.set("/elsewhere/x.html", html, page("X"))
	s.set("/elsewhere/page.html", html, page("Elsewhere"))
	s.set("/outside.html", html, page("Outside"))
	s.redirects["/docs/old.html"] = "/docs/new.html"
	s.redirects["/docs/away.html"] = "/elsewhere/page.html"
	s.status["/docs/broken.html"] = http.StatusInternalServerError
	return s
}
