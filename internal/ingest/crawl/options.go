package crawl

import (
	"time"
)

// The defaults of Options' zero fields.
const (
	DefaultMaxPages       = 500
	DefaultMaxDepth       = 10
	DefaultMaxPageBytes   = 10 << 20
	DefaultMaxTime        = 15 * time.Minute
	DefaultMaxSitemapURLs = 50000
	DefaultConcurrency    = 2
	DefaultDelay          = 100 * time.Millisecond
	// maxCrawlDelay bounds robots.txt's Crawl-delay.
	maxCrawlDelay = 10 * time.Second
	// maxSitemaps bounds the sitemap files read, nested indexes included.
	maxSitemaps = 20
	// maxRobotsBytes is the part of robots.txt read (Google reads 500 KiB).
	maxRobotsBytes = 500 << 10
)

// Options is what to crawl and its bounds.
type Options struct {
	// Start is the first page; the crawl stays on its host (after the
	// start page's redirects) under its path up to the last slash.
	Start string
	// MaxPages is the most pages in scope; a site with more is refused.
	MaxPages int
	// MaxDepth is how many links deep from the start page (sitemap
	// entries are depth 1) the crawl follows.
	MaxDepth int
	// MaxPageBytes bounds one page's body; a larger page is Failed.
	MaxPageBytes int64
	// MaxTime bounds the whole crawl.
	MaxTime time.Duration
	// MaxSitemapURLs bounds the entries read from the site's sitemaps.
	MaxSitemapURLs int
	// Concurrency is how many requests the crawl has open at once on its
	// host.
	Concurrency int
	// Delay is the least time between the starts of two requests to the
	// host; robots.txt's Crawl-delay wins when longer (up to 10 s).
	// Negative: none.
	Delay time.Duration
	// Previous is the last crawl's state of each page, by page URL: its
	// validators make the requests conditional.
	Previous map[string]State
}

func (o Options) withDefaults() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxPageBytes <= 0 {
		o.MaxPageBytes = DefaultMaxPageBytes
	}
	if o.MaxTime <= 0 {
		o.MaxTime = DefaultMaxTime
	}
	if o.MaxSitemapURLs <= 0 {
		o.MaxSitemapURLs = DefaultMaxSitemapURLs
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	}
	return o
}
