// Package websearch finds pages on the web for ragd's agentic routes and its
// web-search endpoints. Each backend (SerpAPI, a self-hosted SearXNG)
// implements Provider; Guarded puts one behind a resilience.Guard.
package websearch

import (
	"context"
	"net/http"
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
	// http.DefaultTransport. A provider sets no timeout of its own: the
	// caller's context bounds each call, in ragd the guard's per-attempt
	// websearch.timeout.
	HTTPClient *http.Client
	// BaseURL replaces https://serpapi.com (SerpAPI only), for tests and
	// proxies.
	BaseURL string
}

func (o Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}
