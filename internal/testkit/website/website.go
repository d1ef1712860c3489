// Package website serves a real HTTP site for the tests of web sources: a
// net/http server on a loopback port whose pages, robots.txt, redirects and
// error statuses the test sets and changes between crawls, answering each
// conditional request whose ETag matches with a 304, and counting what it
// is asked (full answers and 304s by path).
package website

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// HTML is the content type of the pages Page writes.
const HTML = "text/html; charset=utf-8"

// Site is a running site.
type Site struct {
	srv *httptest.Server
	mu  sync.Mutex
	// pages are the bodies by path, with their content type.
	pages, types map[string]string
	redirects    map[string]string // path → Location
	status       map[string]int    // path → an error status
	full, hits   map[string]int
	notModified  map[string]int
}

// New serves an empty site on 127.0.0.1 until the test ends.
func New(t testing.TB) *Site { return NewOn(t, "127.0.0.1") }

// NewOn serves an empty site on the loopback address addr (127.0.0.2
// is the guard's private address in tests built with
// guard.BlockingOnly).
func NewOn(t testing.TB, addr string) *Site {
	t.Helper()
	l, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v (Linux routes all of 127.0.0.0/8 to lo)", addr, err)
	}
	s := &Site{pages: map[string]string{}, types: map[string]string{}, redirects: map[string]string{},
		status: map[string]int{}, full: map[string]int{}, hits: map[string]int{}, notModified: map[string]int{}}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the site's URL of path p.
func (s *Site) URL(p string) string { return s.srv.URL + p }

// Set serves body with content type ctype at path p (no redirect, no
// error status).
func (s *Site) Set(p, ctype, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[p], s.types[p] = body, ctype
	delete(s.redirects, p)
	delete(s.status, p)
}

// Remove makes p answer 404.
func (s *Site) Remove(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pages, p)
	delete(s.redirects, p)
	delete(s.status, p)
}

// Redirect makes p answer 302 to location.
func (s *Site) Redirect(p, location string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirects[p] = location
}

// Status makes p answer code (0: its page again).
func (s *Site) Status(p string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		delete(s.status, p)
		return
	}
	s.status[p] = code
}

// Counts are the requests a site answered.
type Counts struct {
	Hits        int // every request
	Full        int // pages answered in full (200)
	NotModified int // 304s
}

// Count is what path p was answered; "" sums every path but robots.txt
// and sitemaps.
func (s *Site) Count(p string) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p != "" {
		return Counts{Hits: s.hits[p], Full: s.full[p], NotModified: s.notModified[p]}
	}
	var c Counts
	for k := range s.hits {
		if k == "/robots.txt" || strings.HasSuffix(k, ".xml") {
			continue
		}
		c.Hits, c.Full, c.NotModified = c.Hits+s.hits[k], c.Full+s.full[k], c.NotModified+s.notModified[k]
	}
	return c
}

// Reset zeroes the counts.
func (s *Site) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.full, s.hits, s.notModified = map[string]int{}, map[string]int{}, map[string]int{}
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	s.hits[p]++
	body, ok := s.pages[p]
	ctype, loc, code := s.types[p], s.redirects[p], s.status[p]
	s.mu.Unlock()
	switch {
	case loc != "":
		http.Redirect(w, r, loc, http.StatusFound)
	case code != 0:
		http.Error(w, http.StatusText(code), code)
	case !ok:
		http.NotFound(w, r)
	default:
		s.respond(w, r, p, ctype, body)
	}
}

// respond answers body with an ETag of its bytes, or 304 when the
// request's If-None-Match is that ETag.
func (s *Site) respond(w http.ResponseWriter, r *http.Request, p, ctype, body string) {
	sum := sha256.Sum256([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	hit := r.Header.Get("If-None-Match") == etag
	s.mu.Lock()
	if hit {
		s.notModified[p]++
	} else {
		s.full[p]++
	}
	s.mu.Unlock()
	if hit {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", ctype)
	fmt.Fprint(w, body)
}

// Page is an HTML page titled title, with text and links to each of
// links.
func Page(title, text string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><h1>%s</h1><p>%s</p>", title, title, text)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	b.WriteString("</body></html>")
	return b.String()
}
