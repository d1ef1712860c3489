package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"ragd"
	"strings"
	"time"
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
	endpoint string
	cfg      Config
	http     *http.Client
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
	return &Client{endpoint: base + "/chat/completions", cfg: cfg, http: hc}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Complete runs one non-streamed completion, bounded by ctx.
func (c *Client) Complete(ctx context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	resp, err := c.post(ctx, req, false)
	if err != nil {
		return ragd.ChatResponse{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return ragd.ChatResponse{}, fmt.Errorf("llm: reading response: %w", err)
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
		return ragd.ChatResponse{}, &APIError{Message: msg}
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

// post sends the request and returns the response when its status is 2xx;
// any other status becomes an *APIError.
func (c *Client) post(ctx context.Context, req ragd.ChatRequest, stream bool) (*http.Response, error) {
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
	body, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("llm: encoding request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, apiError(resp.StatusCode, b)
	}
	return resp, nil
}
