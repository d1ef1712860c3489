package websearch

import "strings"

// New picks the configured provider: SearXNG when searxngURL is set (it is
// self-hosted, so free and private), else SerpAPI when serpAPIKey is set,
// else (nil, nil), which callers report as ErrNotConfigured.
func New(serpAPIKey, searxngURL string, opts Options) (Provider, error) {
	switch {
	case strings.TrimSpace(searxngURL) != "":
		p, err := NewSearXNG(searxngURL, opts)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return p, nil
	case strings.TrimSpace(serpAPIKey) != "":
		return NewSerpAPI(serpAPIKey, opts), nil
	}
	return nil, nil
}
