// Package client calls a ragd server over its REST API. It is what the
// command-line client (package cli) talks through; the request and response
// bodies are the service layer's own types, so client and server cannot
// drift apart.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultServer is where a client looks for ragd when told nothing else.
const DefaultServer = "http://127.0.0.1:8000"

// callTimeout bounds one JSON call (a generated answer may take minutes);
// streamed transfers (export, import) are bounded only by their context.
const callTimeout = 5 * time.Minute

// Client is a ragd server's REST API.
type Client struct {
	base  *url.URL
	token string
	// tokens, when set, gives the bearer token of each call instead.
	tokens func(context.Context) (string, error)
	http   *http.Client
}

// New returns a client of the server at base (http or https), sending
// token, when set, as a bearer token.
func New(base, token string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q is not an http(s) URL such as %s", base, DefaultServer)
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: dialer.DialContext,
		TLSHandshakeTimeout: 10 * time.Second, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second}
	return &Client{base: u, token: token, http: &http.Client{Transport: transport}}, nil
}

// NewWithTokens is New with the bearer token asked of tokens before each
// call, so a short-lived token can be renewed during a long command (a
// signed-in person's, which ragd login keeps). An error of tokens is the
// call's.
func NewWithTokens(base string, tokens func(context.Context) (string, error)) (*Client, error) {
	c, err := New(base, "")
	if err != nil {
		return nil, err
	}
	c.tokens = tokens
	return c, nil
}

// Server is the server's base URL.
func (c *Client) Server() string { return c.base.String() }

// request is one call: its body (a value sent as JSON, or a reader with
// its content type) and the statuses that count as success.
type request struct {
	method, path string
	query        url.Values
	json         any
	body         io.Reader
	contentType  string
	length       int64 // of body; 0: unknown unless body is nil
	ok           []int
}

// send makes the call and returns the response, whose body the caller
// closes. A status outside r.ok is an *APIError; no answer at all an
// *UnreachableError.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.Path = c.base.Path + r.path
	u.RawQuery = r.query.Encode()
	body, contentType := r.body, r.contentType
	if r.json != nil {
		raw, err := json.Marshal(r.json)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if r.length > 0 {
		req.ContentLength = r.length
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	token := c.token
	if c.tokens != nil {
		if token, err = c.tokens(ctx); err != nil {
			return nil, err
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnreachableError{Server: c.base.String(), Err: err}
	}
	for _, s := range r.ok {
		if resp.StatusCode == s {
			return resp, nil
		}
	}
	defer resp.Body.Close()
	return nil, apiError(r.method, r.path, resp)
}

// call makes a JSON call and decodes the answer into out (unless nil); it
// returns the status, one of r.ok.
func (c *Client) call(ctx context.Context, r request, out any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if len(r.ok) == 0 {
		r.ok = []int{http.StatusOK}
	}
	resp, err := c.send(ctx, r)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := decode(resp, out); err != nil {
			return 0, err
		}
	}
	return resp.StatusCode, nil
}

// decode reads a JSON answer into out.
func decode(resp *http.Response, out any) error {
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: unreadable answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}

// IsUnreachable reports whether err means the server gave no answer.
func IsUnreachable(err error) bool {
	var u *UnreachableError
	return errors.As(err, &u)
}
