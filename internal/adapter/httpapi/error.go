package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is an error answer from an OpenAI-style API: an HTTP error status,
// or (StatusCode 0) an error the server reported inside a 200 answer,
// typically in the middle of a stream.
type Error struct {
	// API names the service, e.g. "embedding API", "llm" or "rerank".
	API string
	// StatusCode is the HTTP status, 0 for an error inside a 200 answer.
	StatusCode int
	// Message is the provider's message (see Message); empty means the
	// status text.
	Message string
	// RetryAfter is how long the provider asked to wait (Retry-After, on a
	// 429 or 503); 0 when it did not say.
	RetryAfter time.Duration
}

// Error is "<API>: HTTP <status>: <message>", or "<API>: server error:
// <message>" for an error inside a 200 answer.
func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return e.API + ": server error: " + e.Message
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.API, e.StatusCode, msg)
}

// Transient reports whether the answer may change on retry: 408, 429, a
// 5xx, or an error inside a 200 answer (a server failing mid-stream).
func (e *Error) Transient() bool {
	s := e.StatusCode
	return s == 0 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
}

// RetryAfterOf is how long err (an *Error) asked to wait, else 0.
func RetryAfterOf(err error) time.Duration {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.RetryAfter
	}
	return 0
}

// maxRetryAfter caps a Retry-After: a provider asking for longer is waited
// for an hour, then asked again.
const maxRetryAfter = time.Hour

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(min(secs, int(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), maxRetryAfter)
	}
	return 0
}

// MaxExcerpt bounds, in bytes, the body text an Error quotes when the body
// names no message.
const MaxExcerpt = 300

// Message is what an error answer's body says went wrong: error.message
// (OpenAI, vLLM), error as a string (Ollama, TEI, llama.cpp), message
// (Cohere), detail as a string (Jina); else the body trimmed to MaxExcerpt
// bytes (cut on a character boundary, "…" marking the cut); else the
// status text.
func Message(status int, body []byte) string {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &env) == nil {
		var detail string
		switch msg := ErrorText(env.Error); {
		case msg != "":
			return msg
		case env.Message != "":
			return env.Message
		case json.Unmarshal(env.Detail, &detail) == nil && detail != "":
			return detail
		}
	}
	if msg := strings.TrimSpace(string(body)); msg != "" {
		if len(msg) > MaxExcerpt {
			msg = strings.ToValidUTF8(msg[:MaxExcerpt], "") + "…"
		}
		return msg
	}
	return http.StatusText(status)
}

// ErrorText reads an "error" member: OpenAI's {"message": …} object or the
// plain string other servers send; empty when it is neither (or absent).
func ErrorText(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}
