package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"ragd"
	"ragd/internal/adapter/httpapi"
)

// DefaultIdleTimeout bounds each wait for more of a stream when
// Config.IdleTimeout is zero; local models on a CPU can take a while to
// answer.
const DefaultIdleTimeout = 120 * time.Second

// maxBody bounds a non-streamed response body.
const maxBody = 16 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or
	// http://localhost:11434/v1; a trailing slash is ignored.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKey, when set, is sent as a Bearer token.
	APIKey string
	// IdleTimeout bounds Stream's wait for each chunk (so a long answer
	// that keeps streaming is not cut off). Complete sets no timeout of its
	// own: the caller's context bounds it, in ragd the guard's per-attempt
	// llm.timeout, so that it is bounded once. Zero means
	// DefaultIdleTimeout, negative no limit.
	IdleTimeout time.Duration
	// Temperature is sent as is; a negative value leaves the server's
	// default (some models accept no other).
	Temperature float64
	// MaxTokens caps the completion; zero leaves the server's default.
	MaxTokens int
	// HTTPClient defaults to a client of its own.
	HTTPClient *http.Client
}

// Client calls one model of one chat-completions server. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	api httpapi.Client
}

// New validates cfg and returns a client.
func New(cfg Config) (*Client, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		return nil, errors.New("llm: base URL is required")
	}
	if cfg.Model == "" {
		return nil, errors.New("llm: model is required")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, api: httpapi.Client{API: apiName, URL: base + "/chat/completions", Key: cfg.APIKey, HTTP: hc, MaxBody: maxBody}}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Complete runs one non-streamed completion, bounded by ctx.
func (c *Client) Complete(ctx context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	body, err := c.api.Post(ctx, c.wireRequest(req, false))
	if err != nil {
		return ragd.ChatResponse{}, err
	}
	return decodeCompletion(body)
}

// decodeCompletion reads a non-streamed completion body.
func decodeCompletion(body []byte) (ragd.ChatResponse, error) {
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return ragd.ChatResponse{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if msg := errorMessage(w.Error); msg != "" && len(w.Choices) == 0 {
		// some servers report failures in a 200 body
		return ragd.ChatResponse{}, bodyError(msg)
	}
	if len(w.Choices) == 0 {
		return ragd.ChatResponse{}, fmt.Errorf("%w: no choices", ErrMalformed)
	}
	ch := w.Choices[0]
	if ch.Message.Role == "" {
		ch.Message.Role = ragd.RoleAssistant
	}
	return ragd.ChatResponse{Message: ch.Message, FinishReason: ch.FinishReason, Usage: w.Usage.usage()}, nil
}

// wireRequest is the body of req for the configured model.
func (c *Client) wireRequest(req ragd.ChatRequest, stream bool) wireRequest {
	w := wireRequest{Model: c.cfg.Model, Messages: req.Messages, Stream: stream, MaxTokens: c.cfg.MaxTokens}
	if w.Messages == nil {
		w.Messages = []ragd.ChatMessage{}
	}
	if c.cfg.Temperature >= 0 {
		t := c.cfg.Temperature
		w.Temperature = &t
	}
	if len(req.Tools) > 0 { // tool_choice without tools is rejected by OpenAI
		w.Tools, w.ToolChoice = req.Tools, req.ToolChoice
	}
	if stream {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return w
}
