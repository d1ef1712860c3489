package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// secret is what an internal failure's text may carry: an address of the
// server's network and a credential. No response may show it.
const secret = "dial tcp 10.9.8.7:6379: secret-token"

// leaky is an OpenAI-compatible embeddings and chat endpoint and a SearXNG
// instance; once failing holds an HTTP status, every answer (or with
// chatOnly, the chat model's) is that status with secret in its body (a
// stream: one piece, then secret as its error).
type leaky struct {
	failing  atomic.Int32
	chatOnly atomic.Bool
}

func (l *leaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Input  []string `json:"input"`
		Stream bool     `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	status := int(l.failing.Load())
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	if l.chatOnly.Load() && !chat {
		status = 0
	}
	switch {
	case status != 0 && body.Stream:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Kelp \"}}]}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, "data: {\"error\":{\"message\":%q}}\n\n", secret)
	case status != 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":%q}`, secret)
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		data := make([]map[string]any, len(body.Input))
		for i, text := range body.Input {
			data[i] = map[string]any{"embedding": hashVector(text), "index": i}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	case chat:
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{
			{"message": map[string]any{"role": "assistant", "content": "Kelp grows on cold coasts [1]."}, "finish_reason": "stop"}}})
	default:
		http.NotFound(w, r)
	}
}

// callTool is an MCP tool call's result as JSON (or its protocol error).
func callTool(cs *sdk.ClientSession, tool string, args map[string]any) string {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error()
	}
	raw, _ := json.Marshal(res)
	return string(raw)
}

var question = map[string]any{"query": "Where does kelp grow?"}

// searchSurfaces calls a failing embedder and web search over REST, MCP
// and POST / and returns each response's text by name.
// (query differs each time: a query's embedding is cached).
func searchSurfaces(t *testing.T, s *stack.Stack, cs *sdk.ClientSession, query string) map[string]string {
	t.Helper()
	question := map[string]any{"query": query}
	return map[string]string{
		"REST /tools/rag_search": string(s.Do(t, http.MethodPost, "/tools/rag_search", question).Body),
		"MCP core_retrieve_text": callTool(cs, "core_retrieve_text", question),
		"MCP core_search_web":    callTool(cs, "core_search_web", question),
		"POST /":                 string(s.Do(t, http.MethodPost, "/", []byte(`{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"kelp"}}`)).Body),
	}
}

// answerSurfaces calls a failing chat model over REST (in one piece and
// streamed: the failure comes after the first piece) and MCP.
func answerSurfaces(t *testing.T, s *stack.Stack, cs *sdk.ClientSession) map[string]string {
	t.Helper()
	return map[string]string{
		"REST /tools/rag_query":         string(s.Do(t, http.MethodPost, "/tools/rag_query", question).Body),
		"REST /tools/rag_query stream":  string(s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": question["query"], "stream": true}).Body),
		"MCP core_query":                callTool(cs, "core_query", question),
		"REST /tools/rag_query agentic": string(s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": question["query"], "mode": "agentic"}).Body),
		"MCP core_query agentic":        callTool(cs, "core_query", map[string]any{"query": question["query"], "mode": "agentic"}),
	}
}

// wantHidden checks no response shows secret and each says its generic
// message.
func wantHidden(t *testing.T, status int, got map[string]string, generic map[string]string) {
	t.Helper()
	for name, text := range got {
		if strings.Contains(text, "10.9.8.7") || strings.Contains(text, "secret-token") {
			t.Errorf("HTTP %d: %s shows the internal error: %s", status, name, text)
		}
		if !strings.Contains(text, generic[name]) {
			t.Errorf("HTTP %d: %s: %s, want %q", status, name, text, generic[name])
		}
	}
}

// The same internal failure — dependencies answering with text that names
// a host and a token, as an error that is no ragd.Error of a user kind —
// is hidden alike over REST, MCP and the web-search endpoint POST /: each
// says only its generic message, and the log has the details. Both a
// failure given up on at once (400) and one retried until the dependency
// counts as unavailable (500) are checked.
func TestInternalErrorsAreHiddenOnEverySurface(t *testing.T) {
	t.Parallel()
	dep := &leaky{}
	srv := httptest.NewServer(dep)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t)
	cfg.Embed.Provider, cfg.Embed.BaseURL, cfg.Embed.Model, cfg.Embed.Dimension = "openai", srv.URL+"/v1", "stand-in", 8
	cfg.LLM.BaseURL, cfg.LLM.Model = srv.URL+"/v1", "stand-in"
	cfg.WebSearch.SearXNGURL = srv.URL
	cfg.Resilience.MaxRetries, cfg.Resilience.CircuitFailThreshold = 1, 1000
	cfg.Cache.Enabled = false
	var logs testenv.Buffer
	s := stack.StartWithLogger(t, cfg, true, slog.New(slog.NewTextHandler(&logs, nil)))
	indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")
	cs := mcpSession(t, s)
	searchGeneric := map[int]map[string]string{
		http.StatusBadRequest: { // given up on at once: an internal error
			"REST /tools/rag_search": "internal server error",
			"MCP core_retrieve_text": "internal error: the server logged the details",
			"MCP core_search_web":    "internal error: the server logged the details",
			"POST /":                 "web search failed",
		},
		http.StatusInternalServerError: { // retried, then unavailable
			"REST /tools/rag_search": "embedder is unavailable",
			"MCP core_retrieve_text": "temporarily unavailable: embedder is unavailable",
			"MCP core_search_web":    "temporarily unavailable: websearch is unavailable",
			"POST /":                 "web search failed",
		},
	}
	answerGeneric := map[string]string{
		"REST /tools/rag_query":         "chat model failed, answered extractively",
		"REST /tools/rag_query stream":  "llm is unavailable",
		"MCP core_query":                "chat model failed, answered extractively",
		"REST /tools/rag_query agentic": "tool calling failed",
		"MCP core_query agentic":        "tool calling failed",
	}
	for _, status := range []int{http.StatusBadRequest, http.StatusInternalServerError} {
		dep.failing.Store(int32(status))
		dep.chatOnly.Store(false)
		wantHidden(t, status, searchSurfaces(t, s, cs, fmt.Sprintf("kelp %d", status)), searchGeneric[status])
		dep.chatOnly.Store(true)
		wantHidden(t, status, answerSurfaces(t, s, cs), answerGeneric)
	}
	if !strings.Contains(logs.String(), "secret-token") {
		t.Error("the log does not have the failure's details")
	}
}
