package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/temoto/robotstxt"

	"ragd"
	"ragd/internal/ingest/guard"
)

// errMaxTime is the cause of a crawl's context when MaxTime ran out.
var errMaxTime = errors.New("crawl time exceeded")

// crawler is one crawl's state.
type crawler struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	opts    Options
	f       *guard.Fetcher
	agent   string
	visitFn func(Page) error

	// plain fetches robots.txt and sitemaps, start the start page (its
	// redirects may change origin), pages every other page (theirs stay in
	// scope); all three are the guard's.
	plain, start, pages *http.Client
	transports          []*http.Transport

	scope    scope
	robots   *robotstxt.RobotsData
	gate     gate
	prevFrom map[string]string // fetched URL → page URL in Previous

	mu       sync.Mutex
	robotsOf map[string]*robotstxt.RobotsData // by origin
	queued   map[string]bool
	planned  int // pages queued to fetch, the start's included
	byHash   map[string]string
	res      Result
	visitMu  sync.Mutex
	visitErr error // visit's error, after which no page is delivered
}

// Crawl crawls opts.Start through f (whose address rules every request
// and redirect obeys), handing each page to visit, one call at a time; an
// error from visit stops the crawl and is returned. The Result is filled
// even with an error, but a caller must then delete nothing.
func Crawl(ctx context.Context, f *guard.Fetcher, opts Options, visit func(Page) error) (Result, error) {
	opts = opts.withDefaults()
	start, err := f.CheckURL(ctx, opts.Start)
	if err != nil {
		return newResult(), err
	}
	tctx, cancelTime := context.WithTimeoutCause(ctx, opts.MaxTime, errMaxTime)
	defer cancelTime()
	c := &crawler{opts: opts, f: f, agent: f.Agent(), visitFn: visit, res: newResult(),
		robotsOf: map[string]*robotstxt.RobotsData{}, queued: map[string]bool{}, byHash: map[string]string{},
		prevFrom: map[string]string{}}
	c.ctx, c.cancel = context.WithCancelCause(tctx)
	defer c.cancel(nil)
	for page, st := range opts.Previous {
		c.prevFrom[st.From] = page
	}
	c.plain = c.client(nil)
	c.start = c.client(c.startRedirect)
	c.pages = c.client(c.pageRedirect)
	defer func() {
		for _, t := range c.transports {
			t.CloseIdleConnections()
		}
	}()
	err = c.run(start)
	return c.res, c.explain(err)
}

func (c *crawler) client(redirect func(*http.Request, []*http.Request) error) *http.Client {
	cl, t := c.f.Client(redirect)
	t.MaxIdleConns, t.MaxIdleConnsPerHost = c.opts.Concurrency, c.opts.Concurrency
	c.transports = append(c.transports, t)
	return cl
}

// explain words a stop for the crawl time bound.
func (c *crawler) explain(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(context.Cause(c.ctx), errMaxTime) {
		return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
			"the crawl of %s took longer than its max_time (%s): nothing can be taken as deleted; raise max_time or narrow the start URL",
			c.opts.Start, c.opts.MaxTime)}
	}
	return err
}

// run crawls the start page, then the sitemap entries and links level by
// level (breadth first), each level's pages Concurrency at a time — but
// pages that differ only in their query one after the other, in order, so
// the same one of two duplicates is kept crawl after crawl.
func (c *crawler) run(start *url.URL) error {
	level, err := c.crawlStart(start)
	if err != nil {
		return err
	}
	for depth := 1; len(level) > 0; depth++ {
		var next []string
		var mu sync.Mutex
		sem := make(chan struct{}, c.opts.Concurrency)
		var wg sync.WaitGroup
		for _, group := range byPath(level) {
			if c.ctx.Err() != nil {
				break
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				found := c.crawlGroup(group, depth)
				mu.Lock()
				next = append(next, found...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if err := context.Cause(c.ctx); err != nil {
			return err
		}
		slices.Sort(next)
		level = next
	}
	return nil
}

// crawlGroup crawls pages at depth in order and returns the links they
// queue.
func (c *crawler) crawlGroup(group []string, depth int) []string {
	var next []string
	for _, u := range group {
		links := c.crawlPage(u)
		if depth >= c.opts.MaxDepth || c.ctx.Err() != nil {
			continue
		}
		found, err := c.enqueue(links)
		if err != nil {
			c.cancel(err)
		}
		next = append(next, found...)
	}
	return next
}

// byPath groups sorted page URLs by all but their query, in order.
func byPath(level []string) [][]string {
	var out [][]string
	for _, u := range level {
		if n := len(out); n > 0 && samePath(out[n-1][0], u) {
			out[n-1] = append(out[n-1], u)
			continue
		}
		out = append(out, []string{u})
	}
	return out
}

// crawlStart reads robots.txt, fetches the start page (its failures are
// the crawl's) and sets the scope where it landed; it returns the first
// level: the start page's links and the sitemaps' entries.
func (c *crawler) crawlStart(start *url.URL) ([]string, error) {
	robots, err := c.loadRobots(start)
	if err != nil {
		return nil, err
	}
	if !allowed(robots, start, c.agent) {
		return nil, ragd.Forbidden("robots.txt of %s disallows %s from the start URL %s", originOf(start), c.agent, start.Redacted())
	}
	resp, err := c.get(c.start, start)
	if err != nil {
		return nil, c.unreachable("the start page "+start.Redacted(), err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	c.scope = scopeOf(final)
	c.robots = c.robotsFor(final)
	c.gate.every = c.delay()
	if resp.StatusCode >= 400 {
		return nil, startStatus(start, resp)
	}
	c.mark(pageURL(start))
	c.mark(pageURL(final))
	c.planned = 1
	links, delivered, err := c.handle(start, resp)
	if err != nil {
		return nil, err
	}
	if !delivered {
		why := c.res.Failed[pageURL(start)]
		return nil, ragd.Invalid("url", "value_error", "the start page %s is not a page ragd reads: %s", start.Redacted(), why)
	}
	level, err := c.enqueue(append(links, c.sitemapURLs()...))
	if c.opts.MaxDepth < 1 {
		level = nil
	}
	return level, err
}

// startStatus is the error of a start page that answered status ≥ 400:
// the crawl saw nothing.
func startStatus(start *url.URL, resp *http.Response) error {
	msg := fmt.Sprintf("the start page %s answered HTTP %s: the crawl saw nothing", start.Redacted(), resp.Status)
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout {
		return &ragd.Error{Kind: ragd.KindUnavailable, Message: msg}
	}
	return ragd.Invalid("url", "value_error", "%s", msg)
}

// unreachable words a request that got no answer: a refusal of the guard
// or of the crawl's rules as it is, a network failure as unavailable.
func (c *crawler) unreachable(what string, err error) error {
	if cause := context.Cause(c.ctx); cause != nil {
		return cause
	}
	var re *ragd.Error
	if errors.As(err, &re) {
		return re
	}
	var out *outsideError
	if errors.As(err, &out) {
		return ragd.Invalid("url", "value_error", "%s redirects to %s, which the crawl may not follow", what, out.to)
	}
	return &ragd.Error{Kind: ragd.KindUnavailable, Message: what + " could not be fetched: the crawl saw nothing",
		Err: &ragd.NetError{What: "fetch", Err: err}}
}
