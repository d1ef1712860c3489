package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// APIError is an error status (or an error event inside a stream) returned by
// the chat-completions server.
type APIError struct {
	// StatusCode is the HTTP status, or 0 for an error reported inside a
	// 200 response (typically in the middle of a stream).
	StatusCode int
	// Message is error.message from the body when present, else a trimmed
	// excerpt of the body or the status text.
	Message string
}

// Error names the HTTP status (when there was one) and the provider's message.
func (e *APIError) Error() string {
	if e.StatusCode == 0 {
		return "llm: server error: " + e.Message
	}
	return fmt.Sprintf("llm: HTTP %d: %s", e.StatusCode, e.Message)
}

// ErrMalformed marks a response body that is not the chat-completions format;
// retrying will not fix it.
var ErrMalformed = errors.New("llm: malformed response")

// IsTransient reports whether err is worth retrying: network failures,
// timeouts, 408, 429, 5xx and errors inside a stream. The caller's own
// mistakes (400, 401, 403, 404, …), malformed bodies and a cancelled context
// are not.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		s := apiErr.StatusCode
		return s == 0 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
	case errors.Is(err, ErrMalformed), errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	// New has validated the URL, so what the transport reports now is the
	// network: refused, reset, DNS, TLS handshake, …
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr)
}

// maxErrorExcerpt bounds the body text quoted in an APIError.
const maxErrorExcerpt = 300

// apiError builds the APIError for a non-2xx response body.
func apiError(status int, body []byte) *APIError {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		msg = errorMessage(env.Error)
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > maxErrorExcerpt {
			msg = strings.ToValidUTF8(msg[:maxErrorExcerpt], "") + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &APIError{StatusCode: status, Message: msg}
}

// errorMessage reads an "error" member: OpenAI's {"message": …} object or
// the plain string some servers (Ollama) send. Empty when absent.
func errorMessage(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	return strings.TrimSpace(string(raw))
}
