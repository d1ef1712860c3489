package crawl

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"ragd"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

// handle turns a response of status < 400 to from into a page for the
// callback, and returns the page's links (in scope or not); delivered is
// false when it was no page (an unsupported type, a duplicate, a failure,
// recorded in the result). err is the callback's.
func (c *crawler) handle(from *url.URL, resp *http.Response) (links []*url.URL, delivered bool, err error) {
	fromKey := pageURL(from)
	if resp.StatusCode == http.StatusNotModified {
		return c.notModified(fromKey, resp)
	}
	if resp.StatusCode != http.StatusOK {
		c.failed(fromKey, "HTTP "+resp.Status)
		return nil, false, nil
	}
	final := resp.Request.URL
	ct := resp.Header.Get("Content-Type")
	typ, err := guard.TypeOf(ct, final)
	if errors.Is(err, sourcetype.ErrUnsupported) {
		return nil, false, nil // not a page: neither seen nor failed
	}
	body, err := c.readBody(resp)
	if err != nil {
		c.failed(fromKey, err.Error())
		return nil, false, nil
	}
	if typ == ragd.SourceHTML || typ == ragd.SourceText || typ == ragd.SourceMarkdown {
		body = guard.ToUTF8(body, ct)
	}
	key := pageURL(final)
	var inScope []string
	if typ == ragd.SourceHTML {
		hl := parseLinks(body, final)
		if hl.canonical != nil && c.scope.contains(hl.canonical) && pageURL(hl.canonical) != key {
			// another page is this one's canonical form: that page is
			// fetched in its own right, this one is its duplicate
			c.mu.Lock()
			c.res.Duplicates[fromKey] = pageURL(hl.canonical)
			c.mu.Unlock()
			return []*url.URL{hl.canonical}, false, nil
		}
		if !hl.nofollow {
			links = hl.links
			inScope = c.inScope(links)
		}
	}
	st := State{From: pageURL(final), ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		Hash: ragd.ContentHash(body), Type: typ, Links: inScope}
	page := Page{URL: key, Type: typ, Body: body, State: st}
	if prev, ok := c.opts.Previous[key]; ok && prev.Hash == st.Hash {
		page.Body, page.Unchanged = nil, true
	}
	if !c.claim(fromKey, key, st.Hash) {
		return nil, false, nil
	}
	c.mu.Lock()
	c.res.Fetched++
	c.mu.Unlock()
	return links, true, c.deliver(page)
}

// notModified hands over the previous crawl's page for a 304, with the
// validators the answer renews, and returns its links.
func (c *crawler) notModified(fromKey string, resp *http.Response) ([]*url.URL, bool, error) {
	key, st, ok := c.previous(pageURL(resp.Request.URL))
	if !ok {
		c.failed(fromKey, "HTTP 304 Not Modified to an unconditional request")
		return nil, false, nil
	}
	if e := resp.Header.Get("ETag"); e != "" {
		st.ETag = e
	}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		st.LastModified = lm
	}
	if !c.claim(fromKey, key, st.Hash) {
		return nil, false, nil
	}
	c.mu.Lock()
	c.res.NotModified++
	c.mu.Unlock()
	var links []*url.URL
	for _, l := range st.Links {
		if u, err := url.Parse(l); err == nil {
			links = append(links, u)
		}
	}
	return links, true, c.deliver(Page{URL: key, Type: st.Type, Unchanged: true, State: st})
}

// claim records page key as seen, unless it was (fetched from another
// URL) or another page under the same path has the same content: then
// fromKey is a duplicate.
func (c *crawler) claim(fromKey, key, hash string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res.Seen[key] {
		c.res.Duplicates[fromKey] = key
		return false
	}
	if other, ok := c.byHash[hash]; ok && samePath(other, key) {
		c.res.Duplicates[fromKey] = other
		return false
	}
	c.res.Seen[key] = true
	c.byHash[hash] = key
	c.queued[key] = true
	return true
}

// deliver hands p to visit, one call at a time; once visit has returned
// an error, no page is handed over again (fetches already under way end
// with the crawl) and that error is every later call's.
func (c *crawler) deliver(p Page) error {
	c.visitMu.Lock()
	defer c.visitMu.Unlock()
	if c.visitErr != nil {
		return c.visitErr
	}
	c.visitErr = c.visitFn(p)
	return c.visitErr
}

// inScope are the page URLs of links the crawl may follow.
func (c *crawler) inScope(links []*url.URL) []string {
	var out []string
	for _, u := range links {
		if c.scope.contains(u) && !skippedLink(u) {
			out = append(out, pageURL(u))
		}
	}
	return out
}

// enqueue queues the links not queued yet that are in scope and allowed,
// returning them; more pages than MaxPages is an error.
func (c *crawler) enqueue(links []*url.URL) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range links {
		if !c.scope.contains(u) || skippedLink(u) {
			continue
		}
		key := pageURL(u)
		if c.queued[key] {
			continue
		}
		c.queued[key] = true
		if !allowed(c.robots, u, c.agent) {
			c.res.Disallowed++
			continue
		}
		out = append(out, key)
		if c.planned++; c.planned > c.opts.MaxPages {
			return out, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
				"%s%s has more than max_pages (%d) pages: nothing can be taken as deleted; raise max_pages or narrow the start URL",
				c.scope.origin, c.scope.prefix, c.opts.MaxPages)}
		}
	}
	return out, nil
}
