package websearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"ragd"
)

// ErrNotConfigured is returned (and reported by the transports) when neither
// SerpAPI nor SearXNG is set up. Compare with errors.Is.
var ErrNotConfigured error = &ragd.Error{Kind: ragd.KindUnavailable,
	Message: "web search is not configured (set SERPAPI_KEY or websearch.searxng_url)"}

// StatusError is a provider's answer refusing the search, with the message
// the provider gave: a non-200 HTTP answer (SerpAPI's {"error": …},
// SearXNG's body or status text), or SerpAPI's 200 with an error.
type StatusError struct {
	Provider string
	Status   int
	Message  string
}

// Error reads like "serpapi: HTTP 401: Invalid API key.".
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
}

// Public is what of err a client may read: a ragd.Error's message (a
// timeout, an unavailable provider), else for a refusal only the provider
// and its HTTP status, else "". The text of any other failure (a refused
// connection, a DNS answer, a malformed body) and the provider's own words
// (a self-hosted instance's or its proxy's may name hosts of the server's
// network) only the log shows, as REST and MCP keep internal errors to the
// log.
func Public(err error) string {
	var re *ragd.Error
	if errors.As(err, &re) && re.Kind != ragd.KindInternal && re.Message != "" {
		return re.Message
	}
	var se *StatusError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s answered HTTP %d (the server logged the details)", se.Provider, se.Status)
	}
	return ""
}

// IsTransient reports whether err is worth retrying and counts against the
// provider's health: network failures, timeouts, HTTP 429 and 5xx. HTTP 4xx
// (a bad key, a disabled JSON format), invalid arguments, a cancelled caller
// and malformed answers are not. Build the provider's resilience.Guard with
// it.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrNotConfigured) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == 429 || se.Status >= 500
	}
	var re *ragd.Error
	if errors.As(err, &re) {
		return re.Kind == ragd.KindUnavailable
	}
	var ne net.Error // *url.Error is one too: every transport failure lands here
	if errors.As(err, &ne) {
		return true
	}
	// A connection dropped mid-answer.
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
