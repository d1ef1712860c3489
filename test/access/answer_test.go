package access_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
)

// echoChat speaks the OpenAI chat-completions wire format (a stand-in for
// a hosted model): offered tools and holding no tool result yet, it calls
// search_documents; otherwise it answers with every message it was sent,
// so whatever passage reached the model shows in the answer.
type echoChat struct{}

func (echoChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []any `json:"tools"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	var all []string
	toolResults := 0
	for _, m := range req.Messages {
		all = append(all, m.Content)
		if m.Role == "tool" {
			toolResults++
		}
	}
	msg := map[string]any{"role": "assistant", "content": "I read: " + strings.Join(all, " | ") + " [1]"}
	if len(req.Tools) > 0 && toolResults == 0 {
		msg = map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "call_0", "type": "function",
			"function": map[string]any{"name": "search_documents", "arguments": `{"query":"harbour lighthouse report","top_k":10}`}}}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
}

// checkWords fails unless text holds the own word of every document want
// names and of none other.
func checkWords(t *testing.T, what, text string, want []string) {
	t.Helper()
	for name, doc := range docTexts {
		own := strings.Fields(doc)[4]
		if has := strings.Contains(text, own); has != slices.Contains(want, name) {
			t.Fatalf("%s: holds %s's word %q: %v, want %v\n%s", what, name, own, has, !has, text)
		}
	}
}

// What reaches a model — the grounded prompt of a configured chat model,
// the agentic loop's tool results, the MCP client's own model asked by
// sampling — holds the caller's documents only.
func TestAnswersReachModelsWithVisiblePassagesOnly(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(echoChat{})
	t.Cleanup(srv.Close)
	cfg := authConfig(t)
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "echo", 5*time.Second
	k := startWith(t, cfg)
	for _, token := range keyOrder {
		for _, mode := range []string{"", "agentic"} {
			body := map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10}
			if mode != "" {
				body["mode"] = mode
			}
			r := call(t, k.s, token, http.MethodPost, "/tools/rag_query", body)
			if r.Status != http.StatusOK {
				t.Fatalf("rag_query %q as %s: %d %s", mode, keyName[token], r.Status, r.Body)
			}
			answer, _ := r.JSON["answer"].(string)
			checkWords(t, fmt.Sprintf("rag_query %q as %s (route %v)", mode, keyName[token], r.JSON["route"]), answer, sees[token])
		}
	}

	plain := start(t) // no chat model: core_query samples the client's
	for _, token := range keyOrder {
		m := &echoModel{}
		client := sdk.NewClient(&sdk.Implementation{Name: "ragd-access-sampling", Version: "1"}, &sdk.ClientOptions{CreateMessageHandler: m.handle})
		tr := &sdk.StreamableClientTransport{Endpoint: plain.s.URL + "/mcp", HTTPClient: &http.Client{Transport: stack.Bearer(token)}}
		cs, err := client.Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := tool(t, cs, "core_query", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10})
		_ = cs.Close()
		if out["route"] != "sampling" || m.prompt == "" {
			t.Fatalf("core_query as %s did not sample: %v", keyName[token], out)
		}
		checkWords(t, "sampling request as "+keyName[token], m.prompt, sees[token])
	}
}

// echoModel is an MCP client's model that keeps the prompt it was sent.
type echoModel struct {
	mu     sync.Mutex
	prompt string
}

func (m *echoModel) handle(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range req.Params.Messages {
		if tc, ok := msg.Content.(*sdk.TextContent); ok {
			m.prompt += tc.Text
		}
	}
	return &sdk.CreateMessageResult{Role: "assistant", Model: "echo", Content: &sdk.TextContent{Text: "Answered [1]."}}, nil
}
