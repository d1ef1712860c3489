// Package httpapi is the client the model adapters (embed, llm, rerank)
// share for OpenAI-style HTTP APIs: a JSON POST with a Bearer key when one is
// set, a bounded answer, and one error type, Error, for an answer with an
// error status — its status, the provider's message (error.message, error,
// message or detail, else a short excerpt of the body) and its Retry-After.
// A failure to reach the server or read its answer is a ragd.NetError,
// which names no URL or address (IsTransport tells it). Retries, breakers
// and what an answer means belong to the adapters.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"ragd"
)

// maxErrorBody bounds how much of an error answer is read for its message.
const maxErrorBody = 64 << 10

// Client POSTs JSON to one endpoint. It is safe for concurrent use.
type Client struct {
	// API names the service at the start of every error, e.g. "embedding
	// API", "llm" or "rerank".
	API string
	// URL is the endpoint requests are POSTed to.
	URL string
	// Key, when set, is sent as a Bearer token.
	Key string
	// HTTP sends the requests; it sets no timeout of its own, the caller's
	// context bounds each call.
	HTTP *http.Client
	// MaxBody bounds a 2xx answer read by Post or Read, in bytes.
	MaxBody int64
}

// Open POSTs body as JSON, asking for accept, and returns the 2xx response
// for the caller to read (a stream, say) and close. Any other status is an
// *Error; a failure to reach the server a transport error (IsTransport).
func (c *Client) Open(ctx context.Context, body any, accept string) (*http.Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding request: %w", c.API, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.API, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, &transportError{&ragd.NetError{What: c.API, Err: err}}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &Error{API: c.API, StatusCode: resp.StatusCode, Message: Message(resp.StatusCode, raw), RetryAfter: retryAfter(resp.Header)}
	}
	return resp, nil
}

// Post POSTs body as JSON and returns the 2xx answer's body, at most
// MaxBody bytes (see Open and Read for the errors).
func (c *Client) Post(ctx context.Context, body any) ([]byte, error) {
	resp, err := c.Open(ctx, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return c.Read(resp.Body)
}

// Read reads an answer's body: a failure to read it is a transport error
// (IsTransport), a body longer than MaxBody an error that says so (a
// runaway or hostile server, not worth a retry).
func (c *Client) Read(body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(body, c.MaxBody+1))
	if err != nil {
		return nil, &transportError{&ragd.NetError{What: c.API + ": reading answer", Err: err}}
	}
	if int64(len(raw)) > c.MaxBody {
		return nil, fmt.Errorf("%s: answer larger than %d bytes", c.API, c.MaxBody)
	}
	return raw, nil
}

// transportError marks a failure to reach the API or read its answer, as
// opposed to an answer that was wrong.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// IsTransport reports whether err is a Client's failure to reach its
// server or to read an answer (refused, reset, DNS, TLS, timed out, cut
// off).
func IsTransport(err error) bool {
	_, ok := errors.AsType[*transportError](err)
	return ok
}
