package rerank

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"ragd/internal/adapter/httpapi"
)

// The wire formats.
const (
	// FormatTEI is text-embeddings-inference's /rerank.
	FormatTEI = "tei"
	// FormatCohere is the /rerank of Cohere, Jina, vLLM and llama.cpp server.
	FormatCohere = "cohere"
)

// maxBody bounds a response body: a score per passage is a few dozen bytes,
// but servers may echo the documents.
const maxBody = 8 << 20

// Config configures a Client.
type Config struct {
	// Format is FormatTEI or FormatCohere.
	Format string
	// BaseURL is the API root the path /rerank is appended to, e.g.
	// http://localhost:8080 (TEI), https://api.cohere.com/v2 or
	// http://localhost:8000/v1 (vLLM); a trailing slash is ignored.
	BaseURL string
	// Model is sent with cohere-format requests (Cohere and Jina need it;
	// vLLM and llama.cpp server use the model they serve when it is empty).
	Model string
	// APIKey, when set, is sent as a Bearer token.
	APIKey string
	// HTTPClient defaults to a client of its own. The client sets no
	// timeout: the caller's context bounds each call, in ragd the guard's
	// rerank.timeout.
	HTTPClient *http.Client
}

// Client calls one reranking server. It is safe for concurrent use.
type Client struct {
	cfg Config
	api httpapi.Client
}

// New validates cfg and returns a client.
func New(cfg Config) (*Client, error) {
	if cfg.Format != FormatTEI && cfg.Format != FormatCohere {
		return nil, fmt.Errorf("rerank: format must be %s or %s, not %q", FormatTEI, FormatCohere, cfg.Format)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("rerank: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, api: httpapi.Client{API: "rerank", URL: base + "/rerank", Key: cfg.APIKey, HTTP: hc, MaxBody: maxBody}}, nil
}

// Model is the configured model, or the server's address when none is
// named (TEI serves one model per server).
func (c *Client) Model() string {
	if c.cfg.Model != "" {
		return c.cfg.Model
	}
	return c.api.URL
}

// Rerank scores texts against query, one score per text in their order.
func (c *Client) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	var body any
	if c.cfg.Format == FormatTEI {
		body = teiRequest{Query: query, Texts: texts, RawScores: false, Truncate: true}
	} else {
		body = cohereRequest{Model: c.cfg.Model, Query: query, Documents: texts, TopN: len(texts)}
	}
	raw, err := c.api.Post(ctx, body)
	if err != nil {
		return nil, err
	}
	var ranks []rank
	if c.cfg.Format == FormatTEI {
		ranks, err = decodeTEI(raw)
	} else {
		ranks, err = decodeCohere(raw)
	}
	if err != nil {
		return nil, err
	}
	return scoresInOrder(ranks, len(texts))
}

// scoresInOrder turns the server's ranks (best first, each naming the
// input's index) into scores in input order, refusing an answer that does
// not score every text exactly once: a partial order would silently drop
// passages.
func scoresInOrder(ranks []rank, n int) ([]float64, error) {
	if len(ranks) != n {
		return nil, malformed("%d scores for %d texts", len(ranks), n)
	}
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range ranks {
		if r.Index == nil || *r.Index < 0 || *r.Index >= n {
			return nil, malformed("a result without a valid index (0-%d)", n-1)
		}
		if seen[*r.Index] {
			return nil, malformed("index %d scored twice", *r.Index)
		}
		if r.Score == nil {
			return nil, malformed("no score for index %d", *r.Index)
		}
		seen[*r.Index] = true
		scores[*r.Index] = *r.Score
	}
	return scores, nil
}

// errMalformed marks an answer that is not the format's.
var errMalformed = errors.New("rerank: malformed response")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}
