package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"

	"ragd/internal/adapter/httpapi"
)

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
	var apiErr *httpapi.Error
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Transient()
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

// errorMessage reads an "error" member of a 200 answer (httpapi.ErrorText),
// or its raw text when it is neither an object with a message nor a
// string: any error member marks a failure. Empty when absent.
func errorMessage(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if msg := httpapi.ErrorText(raw); msg != "" {
		return msg
	}
	return strings.TrimSpace(string(raw))
}

// apiName names the chat model at the start of its errors.
const apiName = "llm"

// bodyError is the error a server reported inside a 200 answer (a body or
// a stream event): an *httpapi.Error without a status, transient.
func bodyError(msg string) error { return &httpapi.Error{API: apiName, Message: msg} }
