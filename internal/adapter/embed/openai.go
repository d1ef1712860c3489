package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"ragd/internal/adapter/httpapi"
)

// DefaultOpenAIBatchSize is the batch size when OpenAIConfig.BatchSize is
// zero.
const DefaultOpenAIBatchSize = 64

// maxResponseBytes bounds one embeddings answer: 64 × 3072-d floats as JSON
// is about 4 MB, so this only stops a runaway or hostile server.
const maxResponseBytes = 256 << 20

// OpenAIConfig configures an embedder for an OpenAI-compatible embeddings API
// (OpenAI, Ollama's /v1, vLLM, LM Studio, …).
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://localhost:11434/v1"; "/embeddings" is appended.
	BaseURL string
	// Model is the provider's model name.
	Model string
	// APIKey is sent as a Bearer token when set; local servers need none.
	APIKey string
	// Dimension is the vector length; 0 means learn it with Probe.
	Dimension int
	// BatchSize is the most texts per request (default 64).
	BatchSize int
	// HTTPClient is used for requests (default: a new http.Client). The
	// embedder sets no timeout of its own: the caller's context bounds each
	// call, in ragd the guard's per-attempt embed.timeout.
	HTTPClient *http.Client
}

// OpenAI embeds texts through an OpenAI-compatible HTTP API. It is safe for
// concurrent use.
type OpenAI struct {
	cfg OpenAIConfig
	api httpapi.Client
	dim atomic.Int64 // 0 until configured or learned
}

// NewOpenAI checks cfg and returns the embedder. It makes no request; call
// Probe to learn the dimension when cfg.Dimension is 0.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embedding API: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, errors.New("embedding API: model is required")
	}
	if cfg.Dimension < 0 {
		return nil, fmt.Errorf("embedding API: negative dimension %d", cfg.Dimension)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultOpenAIBatchSize
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	o := &OpenAI{cfg: cfg, api: httpapi.Client{API: "embedding API", URL: base + "/embeddings", Key: cfg.APIKey, HTTP: hc, MaxBody: maxResponseBytes}}
	o.dim.Store(int64(cfg.Dimension))
	return o, nil
}

// Name identifies the model as "openai:" + model.
func (o *OpenAI) Name() string { return "openai:" + o.cfg.Model }

// Dimension is the vector length: configured, learned by Probe or by the first
// answer, or 0 if not known yet.
func (o *OpenAI) Dimension() int { return int(o.dim.Load()) }

// Probe embeds one short text to learn the model's dimension, or to check the
// configured one against what the model really returns.
func (o *OpenAI) Probe(ctx context.Context) error {
	_, err := o.request(ctx, []string{"dimension probe"})
	return err
}

// Embed embeds texts in batches of BatchSize, one request at a time (a
// provider's rate limit is per key, so parallel batches mostly buy 429s).
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs, err := o.request(ctx, texts[start:min(start+o.cfg.BatchSize, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embeddingsRequest is the OpenAI embeddings request body.
type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// embeddingsResponse is the part of the answer ragd reads.
type embeddingsResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
}

// request sends one batch and returns its vectors in input order.
func (o *OpenAI) request(ctx context.Context, batch []string) ([][]float32, error) {
	input := make([]string, len(batch))
	for i, t := range batch {
		// OpenAI rejects empty strings with a 400 that would fail the whole
		// batch; a space embeds as "nothing" just as well.
		if t == "" {
			t = " "
		}
		input[i] = t
	}
	raw, err := o.api.Post(ctx, embeddingsRequest{Model: o.cfg.Model, Input: input})
	if err != nil {
		return nil, err
	}
	return o.decode(raw, len(batch))
}

// decode parses an answer for n inputs, orders it by index and checks every
// vector against the known dimension (adopting the first one if none is).
func (o *OpenAI) decode(raw []byte, n int) ([][]float32, error) {
	var r embeddingsResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("embedding API: malformed answer: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("embedding API: %d vectors for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for pos, d := range r.Data {
		i := pos // servers that omit index answer in order
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, fmt.Errorf("embedding API: bad or repeated index %d", i)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding API: empty vector at index %d", i)
		}
		want := o.dim.Load()
		if want == 0 {
			// First answer of a model of unknown width: it fixes the width
			// (a concurrent first answer may win instead; both are checked).
			o.dim.CompareAndSwap(0, int64(len(d.Embedding)))
			want = o.dim.Load()
		}
		if int64(len(d.Embedding)) != want {
			return nil, fmt.Errorf("embedding API: model %s returned a %d-d vector, want %d", o.cfg.Model, len(d.Embedding), want)
		}
		out[i] = d.Embedding
	}
	return out, nil
}
