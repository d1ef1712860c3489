package websearch

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"ragd"
)

// SearXNG searches through a self-hosted SearXNG instance, whose settings
// must list json in search.formats.
type SearXNG struct {
	endpoint *url.URL
	fetch    fetcher
}

// NewSearXNG returns a provider for the SearXNG instance at baseURL (e.g.
// http://127.0.0.1:8888 or https://host/searxng). opts.BaseURL is ignored.
func NewSearXNG(baseURL string, opts Options) (*SearXNG, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, ragd.Invalid("searxng_url", "value_error",
			"websearch.searxng_url must be an http(s) URL, got %q", redactURL(baseURL))
	}
	u.RawQuery, u.Fragment = "", ""
	// A password in the URL (basic auth in front of SearXNG) is the secret
	// to keep out of errors.
	secret, _ := u.User.Password()
	return &SearXNG{endpoint: u.JoinPath("search"), fetch: newFetcher("searxng", secret, opts)}, nil
}

// Name is "searxng".
func (s *SearXNG) Name() string { return "searxng" }

// searxAnswer is the part of SearXNG's format=json answer ragd reads.
type searxAnswer struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search asks the instance for query. SearXNG has no result-count
// parameter, so its first page is cut to maxResults.
func (s *SearXNG) Search(ctx context.Context, query string, maxResults int) ([]Result, error) {
	if err := Validate(query, maxResults); err != nil {
		return nil, err
	}
	u := *s.endpoint
	u.RawQuery = url.Values{"q": {strings.TrimSpace(query)}, "format": {"json"}}.Encode()
	var a searxAnswer
	if err := s.fetch.getJSON(ctx, &u, &a, searxMessage); err != nil {
		return nil, err
	}
	out := make([]Result, 0, min(len(a.Results), maxResults))
	for _, r := range a.Results {
		if len(out) == maxResults {
			break
		}
		if r.URL == "" {
			continue
		}
		out = append(out, Result{Title: strings.TrimSpace(r.Title), Link: r.URL, Snippet: strings.TrimSpace(r.Content)})
	}
	return out, nil
}

// searxMessage adds the usual cause to SearXNG's terse refusals.
func searxMessage(status int, body []byte) string {
	msg := bodyMessage(status, body)
	switch status {
	case 403:
		return fmt.Sprintf("%s (is json listed in the instance's search.formats?)", msg)
	case 429:
		return fmt.Sprintf("%s (the instance's limiter refused the request)", msg)
	}
	return msg
}
