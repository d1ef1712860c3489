package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client sends the soak's requests to ragd and records each one.
type Client struct {
	http *http.Client
	base string
	rec  *Recorder
}

// NewClient keeps up to concurrency connections alive, as a steady
// client would (a new connection per request would measure the kernel).
func NewClient(base string, concurrency int, rec *Recorder) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * concurrency
	return &Client{http: &http.Client{Transport: tr, Timeout: 2 * time.Minute}, base: base, rec: rec}
}

// Close drops the idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// call is one request of op. want is the status it must answer with; 0
// means any 2xx. It returns the body and whether the answer was right
// (false also when ctx ended: the soak is over, nothing is recorded).
func (c *Client) call(ctx context.Context, op string, want int, method, path, contentType string, body []byte) ([]byte, bool) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		panic(err) // the soak built a bad request
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if op == "mcp_retrieve" || op == "mcp_query" {
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	var out []byte
	if err == nil {
		out, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	d := time.Since(start)
	switch {
	case ctx.Err() != nil:
		return nil, false
	case err != nil:
		c.rec.Fail(op, d, "transport", err.Error())
		return nil, false
	case want == 0 && resp.StatusCode/100 != 2, want != 0 && resp.StatusCode != want:
		c.rec.Fail(op, d, fmt.Sprint(resp.StatusCode), method+" "+path+" → "+string(out))
		return out, false
	}
	return out, true
}

// jsonCall posts (or sends with method) v as JSON and decodes the answer
// into into (if not nil); the request counts as OK only if both work.
func (c *Client) jsonCall(ctx context.Context, op string, want int, method, path string, v, into any) bool {
	var body []byte
	if v != nil {
		body, _ = json.Marshal(v)
	}
	start := time.Now()
	out, ok := c.call(ctx, op, want, method, path, "application/json", body)
	if !ok {
		return false
	}
	if into != nil {
		if err := json.Unmarshal(out, into); err != nil {
			c.rec.Fail(op, time.Since(start), "bad json", err.Error()+": "+string(out))
			return false
		}
	}
	c.rec.OK(op, time.Since(start))
	return true
}
