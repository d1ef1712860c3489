package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"ragd"
	"ragd/internal/adapter/httpapi"
	"strings"
	"testing"
)

func TestCompletePlain(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "Paris is the capital of France [1]."}, "stop"))
	})
	c := newClient(t, srv)
	if c.Model() != "gpt-test" {
		t.Fatalf("Model() = %q", c.Model())
	}
	resp, err := c.Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{
		{Role: ragd.RoleSystem, Content: "Answer from the passages."},
		{Role: ragd.RoleUser, Content: "What is the capital of France?"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Paris is the capital of France [1]." || resp.Message.Role != ragd.RoleAssistant || resp.FinishReason != "stop" {
		t.Fatalf("got %+v", resp)
	}
	if resp.Usage != (ragd.ChatUsage{PromptTokens: 12, CompletionTokens: 5}) {
		t.Fatalf("usage %+v", resp.Usage)
	}

	got := <-reqs
	if got.Method != http.MethodPost || got.Path != "/v1/chat/completions" {
		t.Fatalf("%s %s; want POST /v1/chat/completions (trailing slash trimmed)", got.Method, got.Path)
	}
	if got.Auth != "Bearer sk-test" {
		t.Fatalf("Authorization %q", got.Auth)
	}
	b := got.Body
	if b["model"] != "gpt-test" || b["stream"] != false || b["temperature"] != 0.2 || b["max_tokens"] != 256.0 {
		t.Fatalf("body %v", b)
	}
	if _, ok := b["tools"]; ok {
		t.Fatalf("tools sent without any: %v", b)
	}
	if _, ok := b["tool_choice"]; ok {
		t.Fatalf("tool_choice sent without tools: %v", b)
	}
	msgs := b["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["role"] != "user" || msgs[1].(map[string]any)["content"] != "What is the capital of France?" {
		t.Fatalf("messages %v", msgs)
	}
}

func TestNoAuthorizationWithoutKeyAndDefaultsOmitted(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "ok"}, "stop"))
	})
	c := newClient(t, srv, func(cfg *Config) { cfg.APIKey, cfg.Temperature, cfg.MaxTokens = "", -1, 0 })
	if _, err := c.Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	got := <-reqs
	if got.Auth != "" {
		t.Fatalf("Authorization sent without a key: %q", got.Auth)
	}
	if _, ok := got.Body["temperature"]; ok {
		t.Fatalf("temperature sent though negative: %v", got.Body)
	}
	if _, ok := got.Body["max_tokens"]; ok {
		t.Fatalf("max_tokens sent though zero: %v", got.Body)
	}
}

var searchTool = ragd.ChatTool{Type: "function", Function: ragd.FunctionDef{
	Name:        "search_documents",
	Description: "Search the indexed documents.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}}

func TestCompleteReturnsToolCalls(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 200, completion(map[string]any{
			"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{
				"id": "call_abc", "type": "function",
				"function": map[string]any{"name": "search_documents", "arguments": `{"query":"memory model"}`},
			}},
		}, "tool_calls"))
	})
	c := newClient(t, srv)
	resp, err := c.Complete(context.Background(), ragd.ChatRequest{
		Messages:   []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "What does the Go memory model say?"}},
		Tools:      []ragd.ChatTool{searchTool},
		ToolChoice: "auto",
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "tool_calls" || resp.Message.Content != "" || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("got %+v", resp)
	}
	tc := resp.Message.ToolCalls[0]
	if tc.ID != "call_abc" || tc.Type != "function" || tc.Function.Name != "search_documents" || tc.Function.Arguments != `{"query":"memory model"}` {
		t.Fatalf("tool call %+v", tc)
	}

	b := (<-reqs).Body
	if b["tool_choice"] != "auto" {
		t.Fatalf("tool_choice %v", b["tool_choice"])
	}
	fn := b["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "search_documents" || fn["parameters"].(map[string]any)["type"] != "object" {
		t.Fatalf("tools %v", b["tools"])
	}
}

func TestToolResultMessageIsSent(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "done"}, "stop"))
	})
	c := newClient(t, srv)
	call := ragd.ToolCall{ID: "call_abc", Type: "function", Function: ragd.FunctionCall{Name: "search_documents", Arguments: `{"query":"x"}`}}
	_, err := c.Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{
		{Role: ragd.RoleUser, Content: "q"},
		{Role: ragd.RoleAssistant, ToolCalls: []ragd.ToolCall{call}},
		{Role: ragd.RoleTool, ToolCallID: "call_abc", Name: "search_documents", Content: "[1] result"},
	}, Tools: []ragd.ChatTool{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := (<-reqs).Body["messages"].([]any)
	tool := msgs[2].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_abc" || tool["content"] != "[1] result" {
		t.Fatalf("tool message %v", tool)
	}
	if calls := msgs[1].(map[string]any)["tool_calls"].([]any); len(calls) != 1 {
		t.Fatalf("assistant tool_calls %v", calls)
	}
}

func TestNewValidates(t *testing.T) {
	for _, cfg := range []Config{
		{Model: "m"},
		{BaseURL: "http://localhost:11434/v1"},
		{BaseURL: "localhost:11434/v1", Model: "m"},
		{BaseURL: "ftp://example.com/v1", Model: "m"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, err := New(Config{BaseURL: "https://api.openai.com/v1/", Model: "gpt-4o-mini"})
	if err != nil || c.api.URL != "https://api.openai.com/v1/chat/completions" || c.cfg.IdleTimeout != DefaultIdleTimeout {
		t.Fatalf("New: %v, %+v", err, c)
	}
}

func TestServerErrorIsTransient(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 500, map[string]any{"error": map[string]any{"message": "The server had an error while processing your request.", "type": "server_error"}})
	})
	_, err := newClient(t, srv).Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
	var apiErr *httpapi.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Fatalf("want APIError 500, got %v", err)
	}
	if !IsTransient(err) {
		t.Fatalf("500 not transient: %v", err)
	}
}

func TestUnauthorizedIsNotTransientAndSurfacesMessage(t *testing.T) {
	const msg = "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys."
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": "invalid_api_key"}})
	})
	_, err := newClient(t, srv).Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
	var apiErr *httpapi.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Message != msg {
		t.Fatalf("want APIError 401 %q, got %#v", msg, err)
	}
	if IsTransient(err) {
		t.Fatal("401 is transient")
	}
	if !strings.Contains(err.Error(), "Incorrect API key") {
		t.Fatalf("message not surfaced: %v", err)
	}
}

func TestPlainStringAndNonJSONErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		body, want string
		status     int
	}{
		{`{"error":"model \"llama3\" not found, try pulling it first"}`, `model "llama3" not found, try pulling it first`, 404},
		{"upstream connect error", "upstream connect error", 502},
		{"", "Too Many Requests", 429},
	} {
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		})
		_, err := newClient(t, srv).Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
		var apiErr *httpapi.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Message != tc.want {
			t.Errorf("status %d: got %#v, want message %q", tc.status, err, tc.want)
		}
		if IsTransient(err) != (tc.status != 404) {
			t.Errorf("status %d: IsTransient = %v", tc.status, IsTransient(err))
		}
	}
}

func TestMalformedBodyIsNotTransient(t *testing.T) {
	for _, body := range []string{`{"choices": [`, `<html>Bad Gateway</html>`, `{"object":"chat.completion","choices":[]}`} {
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		})
		_, err := newClient(t, srv).Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
		if !errors.Is(err, ErrMalformed) || IsTransient(err) {
			t.Errorf("body %q: got %v (transient %v), want ErrMalformed, not transient", body, err, IsTransient(err))
		}
	}
}
