package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// APIError is an error status from the reranking server, with its message.
type APIError struct {
	StatusCode int
	Message    string
}

// Error names the status and the server's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("rerank: HTTP %d: %s", e.StatusCode, e.Message)
}

// IsTransient reports whether err counts against the reranker's breaker:
// every failure but the caller cancelling. Unlike a user's bad request to
// the embedder, every request to the reranker is ragd's own, so a refused
// one (401, 404, 422), a malformed answer or a timeout all mean the stage
// does not work, and after a few the breaker spares searches the round trip.
func IsTransient(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled)
}

// maxErrorExcerpt bounds the body text quoted in an APIError.
const maxErrorExcerpt = 300

// apiError reads the message of an error body: {"error": "…"} (TEI,
// llama.cpp), {"error": {"message": …}} (vLLM), {"message": …} (Cohere,
// Jina's detail aside), else a shortened excerpt.
func apiError(status int, body []byte) *APIError {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(env.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case env.Message != "":
			msg = env.Message
		case json.Unmarshal(env.Detail, &s) == nil && s != "":
			msg = s
		}
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
