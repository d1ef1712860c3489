package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an HTTP error status from an embedding API, with the message
// the provider gave.
type APIError struct {
	StatusCode int
	Message    string
	// RetryAfter is how long the provider asked to wait (Retry-After, on
	// a 429 or 503); 0 when it did not say.
	RetryAfter time.Duration
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(min(secs, 3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), time.Hour)
	}
	return 0
}

// RetryAfterOf is how long err (an *APIError) asked to wait, else 0.
func RetryAfterOf(err error) time.Duration {
	if e, ok := errors.AsType[*APIError](err); ok {
		return e.RetryAfter
	}
	return 0
}

// Error reports the status and the provider's message.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("embedding API: HTTP %d: %s", e.StatusCode, msg)
}

// transportError marks a failure to reach the API or read its answer, as
// opposed to an answer that was wrong.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// IsTransient reports whether err may go away on retry: network errors,
// timeouts, 408, 429 and 5xx. Bad requests, auth failures, missing models and
// malformed answers are not, and neither is the caller cancelling.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		s := apiErr.StatusCode
		return s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if _, ok := errors.AsType[*transportError](err); ok {
		return true
	}
	_, ok := errors.AsType[net.Error](err)
	return ok
}

// apiErrorMessage extracts the provider's message from an error body: OpenAI
// sends {"error":{"message":…}}, Ollama and others {"error":"…"}; anything
// else is quoted, shortened.
func apiErrorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return s
		case e.Message != "":
			return e.Message
		}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
