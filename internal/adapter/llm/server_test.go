package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The tests run the client against an httptest server that speaks the
// OpenAI chat-completions wire format: a stand-in for a hosted model
// (OpenAI, or Ollama, vLLM, llama.cpp behind their OpenAI-compatible API).

// seen is what the stand-in server received.
type seen struct {
	Path, Method, Auth, Accept string
	Body                       map[string]any
}

// newServer starts a stand-in model whose handler is h; it records each
// request's details on the returned channel (buffered, non-blocking).
func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body map[string]any)) (*httptest.Server, <-chan seen) {
	t.Helper()
	reqs := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		select {
		case reqs <- seen{Path: r.URL.Path, Method: r.Method, Auth: r.Header.Get("Authorization"), Accept: r.Header.Get("Accept"), Body: body}:
		default:
		}
		h(w, r, body)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// newClient returns a client of srv's "/v1" API with a short timeout.
func newClient(t *testing.T, srv *httptest.Server, mutate ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: srv.URL + "/v1/", Model: "gpt-test", APIKey: "sk-test", IdleTimeout: 2 * time.Second, Temperature: 0.2, MaxTokens: 256}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeJSON answers with status and v as JSON, as OpenAI does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// completion is an OpenAI chat.completion object with one choice.
func completion(msg map[string]any, finish string) map[string]any {
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
	}
}

// sse writes server-sent events the way OpenAI does: "data: {json}\n\n",
// flushing each so the client sees them one by one.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) data(v any) {
	b, _ := json.Marshal(v)
	s.raw(string(b))
}

func (s sse) raw(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	s.w.(http.Flusher).Flush()
}

func (s sse) done() { s.raw("[DONE]") }

// chunk is a chat.completion.chunk carrying delta and finish (nil while
// the answer goes on).
func chunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
}
