package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"ragd"
)

// APIError is an answer with an error status; Detail is the server's own
// message ({"detail": …}), or for a validation error its fields at fault.
type APIError struct {
	Method, Path string
	Status       int
	Detail       string
}

// Error is the server's message and the status: "job j1 is already
// completed (409 Conflict)".
func (e *APIError) Error() string {
	return fmt.Sprintf("%s (%d %s)", e.Detail, e.Status, http.StatusText(e.Status))
}

// UnreachableError is a request that got no answer: connection refused,
// an unknown host, a timeout.
type UnreachableError struct {
	Server string
	Err    error
}

// Error names the server and why it gave no answer.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach ragd at %s: %v", e.Server, unwrapURLError(e.Err))
}

// Unwrap is the transport's error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// unwrapURLError drops the "Get URL:" prefix *url.Error adds, since the
// message names the server already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// apiError reads an error answer into an *APIError.
func apiError(method, path string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{Method: method, Path: path, Status: resp.StatusCode}
	var body struct {
		Detail json.RawMessage `json:"detail"`
	}
	var text string
	var fields []ragd.FieldError
	switch {
	case json.Unmarshal(raw, &body) == nil && json.Unmarshal(body.Detail, &text) == nil:
		e.Detail = text
	case json.Unmarshal(raw, &body) == nil && json.Unmarshal(body.Detail, &fields) == nil && len(fields) > 0:
		msgs := make([]string, len(fields))
		for i, f := range fields {
			msgs[i] = f.Msg
			if loc := strings.Join(f.Loc, "."); loc != "" {
				msgs[i] = loc + ": " + f.Msg
			}
		}
		e.Detail = strings.Join(msgs, "; ")
	default:
		e.Detail = strings.TrimSpace(string(raw))
		if e.Detail == "" || len(e.Detail) > 300 {
			e.Detail = method + " " + path + " failed"
		}
	}
	return e
}
