// Package websearch finds pages on the web for ragd's agentic routes and its
// web-search endpoints. Each backend (SerpAPI, a self-hosted SearXNG)
// implements Provider; Guarded puts one behind a resilience.Guard.
package websearch

import (
	"context"
	"net/http"
	"time"
)

// Result is one hit of a web search.
type Result struct {
	Title   string `json:"title"`
	Link    string `json:"link"`
	Snippet string `json:"snippet"`
}

// Provider searches the web. Implementations are safe for concurrent use.
type Provider interface {
	// Name identifies the backend in logs and errors, e.g. "serpapi".
	Name() string
	// Search returns at most maxResults hits for query. No hits is an empty
	// slice and a nil error. An invalid query or maxResults (see Validate)
	// is a *ragd.Error of KindInvalid.
	Search(ctx context.Context, query string, maxResults int) ([]Result, error)
}

// Options tune a provider's HTTP calls. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests; nil uses a fresh client over
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// BaseURL replaces https://serpapi.com (SerpAPI only), for tests and
	// proxies.
	BaseURL string
}

// DefaultTimeout bounds a provider call when Options.Timeout is 0. It stays
// under resilience's default 30 s so the provider's own, clearer timeout
// error wins.
const DefaultTimeout = 20 * time.Second

func (o Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}
