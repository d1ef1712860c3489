package crawl

import (
	"slices"

	"ragd"
)

// State is what a crawl keeps of a page for the next one.
type State struct {
	// From is the URL the page was fetched from: its page URL.
	From         string          `json:"from"`
	ETag         string          `json:"etag,omitempty"`
	LastModified string          `json:"last_modified,omitempty"`
	Hash         string          `json:"hash"` // ragd.ContentHash of the body
	Type         ragd.SourceType `json:"type"`
	// Links are the in-scope links of an HTML page, followed again when it
	// answers 304.
	Links []string `json:"links,omitempty"`
}

// Page is one page the crawl found.
type Page struct {
	// URL identifies the page: the URL it was fetched from (after
	// redirects) in canonical form.
	URL  string
	Type ragd.SourceType
	// Body is the page's bytes (text in UTF-8); nil when Unchanged.
	Body []byte
	// Unchanged: the server answered 304, or the body hashes as the
	// previous crawl's did.
	Unchanged bool
	// State is kept for the next crawl (Options.Previous[URL]).
	State State
}

// Result is what a crawl saw.
type Result struct {
	// Seen are the page URLs handed to the callback, changed or not.
	Seen map[string]bool
	// Gone are the URLs that answered 404 or 410.
	Gone map[string]bool
	// Failed are the URLs that could not be read (a 5xx, a network error,
	// a refused address or redirect, a page over MaxPageBytes), with why.
	Failed map[string]string
	// Duplicates are URLs collapsed into another page, with that page.
	Duplicates map[string]string
	// Outside are URLs that redirect out of scope, with where.
	Outside map[string]string
	// Fetched counts full responses, NotModified the 304s; Disallowed the
	// links robots.txt keeps the crawl from.
	Fetched, NotModified, Disallowed int
}

func newResult() Result {
	return Result{Seen: map[string]bool{}, Gone: map[string]bool{}, Failed: map[string]string{},
		Duplicates: map[string]string{}, Outside: map[string]string{}}
}

// MayDelete reports whether the document of page URL u may be deleted
// after this crawl: it was not seen, and not because it failed. Pages the
// crawl no longer reaches, that answer 404 or that robots.txt now keeps it
// from may be deleted; an error from Crawl means none may.
func (r Result) MayDelete(u string) bool {
	_, failed := r.Failed[u]
	return !r.Seen[u] && !failed
}

// SeenURLs are the seen page URLs, sorted.
func (r Result) SeenURLs() []string {
	out := make([]string, 0, len(r.Seen))
	for u := range r.Seen {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}
