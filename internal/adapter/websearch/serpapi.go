package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SerpAPIBaseURL is SerpAPI's hosted endpoint.
const SerpAPIBaseURL = "https://serpapi.com"

// SerpAPI searches Google through serpapi.com (key from SERPAPI_KEY).
type SerpAPI struct {
	key   string
	base  string
	fetch fetcher
}

// NewSerpAPI returns a SerpAPI provider. opts.BaseURL, when set, replaces
// SerpAPIBaseURL; a bad one is reported by Search.
func NewSerpAPI(apiKey string, opts Options) *SerpAPI {
	base := strings.TrimSpace(opts.BaseURL)
	if base == "" {
		base = SerpAPIBaseURL
	}
	key := strings.TrimSpace(apiKey)
	return &SerpAPI{key: key, base: base, fetch: newFetcher("serpapi", key, opts)}
}

// Name is "serpapi".
func (s *SerpAPI) Name() string { return "serpapi" }

// serpAnswer is the part of SerpAPI's search.json answer ragd reads.
type serpAnswer struct {
	Error          string `json:"error"`
	OrganicResults []struct {
		Title   string `json:"title"`
		Link    string `json:"link"`
		Snippet string `json:"snippet"`
	} `json:"organic_results"`
}

// Search asks SerpAPI's Google engine for query.
func (s *SerpAPI) Search(ctx context.Context, query string, maxResults int) ([]Result, error) {
	if err := Validate(query, maxResults); err != nil {
		return nil, err
	}
	u, err := url.Parse(s.base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("serpapi: base URL %q is not an http(s) URL", redactURL(s.base))
	}
	u = u.JoinPath("search.json")
	u.RawQuery = url.Values{"engine": {"google"}, "q": {strings.TrimSpace(query)},
		"num": {strconv.Itoa(maxResults)}, "api_key": {s.key}}.Encode()
	var a serpAnswer
	if err := s.fetch.getJSON(ctx, u, &a, bodyMessage); err != nil {
		return nil, err
	}
	out := make([]Result, 0, min(len(a.OrganicResults), maxResults))
	for _, r := range a.OrganicResults {
		if len(out) == maxResults {
			break
		}
		if r.Link == "" {
			continue
		}
		out = append(out, Result{Title: strings.TrimSpace(r.Title), Link: r.Link, Snippet: strings.TrimSpace(r.Snippet)})
	}
	// SerpAPI answers 200 with an "error" both for searches Google found
	// nothing for (an empty result, not a failure) and for real failures.
	if a.Error != "" && len(out) == 0 && !strings.Contains(strings.ToLower(a.Error), "returned any results") {
		return nil, &StatusError{Provider: "serpapi", Status: http.StatusOK, Message: scrub(a.Error, s.key)}
	}
	return out, nil
}
