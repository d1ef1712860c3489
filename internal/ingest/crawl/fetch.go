package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"ragd"
)

// outsideError refuses a redirect out of the crawl's scope.
type outsideError struct{ to string }

func (e *outsideError) Error() string { return "redirect out of the crawl's scope to " + e.to }

// startRedirect lets the start page's redirects change origin, each hop
// allowed by its origin's robots.txt.
func (c *crawler) startRedirect(req *http.Request, _ []*http.Request) error {
	robots, err := c.loadRobots(req.URL)
	if err != nil {
		return err
	}
	if !allowed(robots, req.URL, c.agent) {
		return ragd.Forbidden("robots.txt of %s disallows %s from %s", originOf(req.URL), c.agent, req.URL.Redacted())
	}
	c.conditional(req)
	return nil
}

// pageRedirect keeps every other redirect in scope and allowed.
func (c *crawler) pageRedirect(req *http.Request, _ []*http.Request) error {
	if !c.scope.contains(req.URL) || !allowed(c.robots, req.URL, c.agent) {
		return &outsideError{to: req.URL.Redacted()}
	}
	c.conditional(req)
	return nil
}

// gate spaces the starts of requests by every.
type gate struct {
	next  time.Time
	every time.Duration
}

func (c *crawler) wait() error {
	if c.gate.every <= 0 {
		return c.ctx.Err()
	}
	c.mu.Lock()
	now := time.Now()
	at := c.gate.next
	if at.Before(now) {
		at = now
	}
	c.gate.next = at.Add(c.gate.every)
	c.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-c.ctx.Done():
		return context.Cause(c.ctx)
	}
}

// delay is the spacing of requests: Delay, or robots.txt's Crawl-delay
// for ragd when longer (at most 10 s).
func (c *crawler) delay() time.Duration {
	d := max(c.opts.Delay, 0)
	if g := c.robots.FindGroup(c.agent); g != nil && g.CrawlDelay > d {
		d = min(g.CrawlDelay, maxCrawlDelay)
	}
	return d
}

// get GETs u with cl, conditionally when the previous crawl kept
// validators for it.
func (c *crawler) get(cl *http.Client, u *url.URL) (*http.Response, error) {
	if err := c.wait(); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, ragd.Invalid("url", "value_error", "invalid URL: %v", err)
	}
	req.Header.Set("User-Agent", c.agent)
	req.Header.Set("Accept", "text/html, application/xhtml+xml, text/markdown, text/plain, application/pdf, */*;q=0.1")
	c.conditional(req)
	return cl.Do(req)
}

// conditional sets req's validators from the state the previous crawl
// kept of its URL (a redirect's target included), clearing any other.
func (c *crawler) conditional(req *http.Request) {
	req.Header.Del("If-None-Match")
	req.Header.Del("If-Modified-Since")
	_, prev, ok := c.previous(pageURL(req.URL))
	if !ok {
		return
	}
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
}

// previous is the page URL and state the last crawl kept of the page
// fetched from u.
func (c *crawler) previous(u string) (string, State, bool) {
	if page, ok := c.prevFrom[u]; ok {
		return page, c.opts.Previous[page], true
	}
	st, ok := c.opts.Previous[u]
	return u, st, ok
}

// crawlPage fetches u (a page URL) and returns its links; what went wrong
// is recorded in the result, or stops the crawl when it must.
func (c *crawler) crawlPage(u string) []*url.URL {
	pu, err := url.Parse(u)
	if err != nil {
		c.failed(u, err.Error())
		return nil
	}
	resp, err := c.get(c.pages, pu)
	if err != nil {
		c.fetchFailed(u, err)
		return nil
	}
	defer resp.Body.Close()
	c.mark(pageURL(resp.Request.URL))
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		c.mu.Lock()
		c.res.Gone[u] = true
		c.mu.Unlock()
		return nil
	case resp.StatusCode >= 400:
		c.failed(u, "HTTP "+resp.Status)
		return nil
	}
	links, _, err := c.handle(pu, resp)
	if err != nil {
		c.cancel(err)
	}
	return links
}

// fetchFailed records a request that got no answer, or stops the crawl
// when its time is up or it was cancelled.
func (c *crawler) fetchFailed(u string, err error) {
	if cause := context.Cause(c.ctx); cause != nil {
		return
	}
	var out *outsideError
	if errors.As(err, &out) {
		c.mu.Lock()
		c.res.Outside[u] = out.to
		c.mu.Unlock()
		return
	}
	var re *ragd.Error
	if errors.As(err, &re) {
		c.failed(u, re.Error())
		return
	}
	c.failed(u, (&ragd.NetError{What: "fetch", Err: err}).Error())
}

func (c *crawler) failed(u, why string) {
	c.mu.Lock()
	c.res.Failed[u] = why
	c.mu.Unlock()
}

// mark records u as queued, so it is not fetched again.
func (c *crawler) mark(u string) {
	c.mu.Lock()
	c.queued[u] = true
	c.mu.Unlock()
}

// readBody reads at most MaxPageBytes of resp's body; more is an error.
func (c *crawler) readBody(resp *http.Response) ([]byte, error) {
	limit := c.opts.MaxPageBytes
	tooLarge := &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
		"the page is larger than max_page_bytes (%d bytes)", limit)}
	if resp.ContentLength > limit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &ragd.NetError{What: "reading the page", Err: err}
	}
	if int64(len(body)) > limit {
		return nil, tooLarge
	}
	return body, nil
}
