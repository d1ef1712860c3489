package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// failMode is how a stand-in dependency misbehaves: answer, fail with 500,
// or drop the connection without an answer.
type failMode int32

const (
	answerWell failMode = iota
	fail500
	hangUp
)

// standIn is an OpenAI-compatible embeddings and chat endpoint whose
// failures a test switches on.
type standIn struct{ mode atomic.Int32 }

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch failMode(s.mode.Load()) {
	case fail500:
		http.Error(w, `{"error":{"message":"upstream exploded"}}`, http.StatusInternalServerError)
		return
	case hangUp:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	var req struct {
		Input []string `json:"input"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{
			{"message": map[string]any{"role": "assistant", "content": "Kelp grows on cold coasts [1]."}, "finish_reason": "stop"}}})
		return
	}
	type item struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		data[i] = item{Embedding: hashVector(text), Index: i}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func mcpSession(t *testing.T, s *stack.Stack) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// want503 checks a REST answer is a dependency error naming dep, with
// Retry-After.
func want503(t *testing.T, what string, r stack.Response, dep string) {
	t.Helper()
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(str(r.JSON, "detail"), dep) {
		t.Fatalf("%s: %d %s (Retry-After %q), want 503 naming %s", what, r.Status, r.Body, r.Header.Get("Retry-After"), dep)
	}
}

// wantToolError checks an MCP tool call ends in an isError result saying
// the dependency is unavailable — not a protocol error, not "internal".
func wantToolError(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, dep string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if !res.IsError || !strings.Contains(b.String(), "temporarily unavailable") || !strings.Contains(b.String(), dep) {
		t.Fatalf("%s: isError %v %q, want an unavailable %s", tool, res.IsError, b.String(), dep)
	}
}

// An embedding API that fails — 500s, connections dropped unanswered, or
// nothing listening at all — makes searches 503 with Retry-After and MCP
// isError results, never 500.
func TestEmbedderFailureIs503(t *testing.T) {
	t.Parallel()
	emb := &standIn{}
	srv := httptest.NewServer(emb)
	cfg := stack.Config(t)
	cfg.Embed.Provider, cfg.Embed.BaseURL, cfg.Embed.Model, cfg.Embed.Dimension = "openai", srv.URL+"/v1", "stand-in", 8
	cfg.Resilience.MaxRetries = 1
	cfg.Resilience.CircuitFailThreshold = 100 // each failure reaches the stand-in
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")
	cs := mcpSession(t, s)
	for _, m := range []failMode{fail500, hangUp} {
		emb.mode.Store(int32(m))
		want503(t, fmt.Sprintf("search, embedder mode %d", m), s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "kelp"}), "embedder")
		wantToolError(t, cs, "core_retrieve_text", map[string]any{"query": "kelp"}, "embedder")
	}
	srv.Close() // connection refused
	want503(t, "search, embedder gone", s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "kelp"}), "embedder")
	wantToolError(t, cs, "core_retrieve_text", map[string]any{"query": "kelp"}, "embedder")
}

// A chat model that fails — 500s, dropped connections, nothing listening —
// never makes an answer 500: ragd answers extractively and says why.
func TestChatModelFailureFallsBack(t *testing.T) {
	t.Parallel()
	model := &standIn{}
	srv := httptest.NewServer(model)
	cfg := stack.Config(t)
	cfg.LLM.BaseURL, cfg.LLM.Model = srv.URL+"/v1", "stand-in"
	cfg.Resilience.MaxRetries = 1
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")
	if r := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "Where does kelp grow?"}); r.Status != http.StatusOK || str(r.JSON, "fallback") != "" {
		t.Fatalf("with the model up: %d %s", r.Status, r.Body)
	}
	cases := []struct {
		name string
		set  func()
	}{
		{"500", func() { model.mode.Store(int32(fail500)) }},
		{"hang-up", func() { model.mode.Store(int32(hangUp)) }},
		{"refused", srv.Close},
	}
	for _, c := range cases {
		c.set()
		r := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "Where does kelp grow?"})
		if r.Status != http.StatusOK || !strings.Contains(str(r.JSON, "fallback"), "chat model failed") || str(r.JSON, "answer") == "" {
			t.Fatalf("model %s: %d %s, want an extractive answer naming the failure", c.name, r.Status, r.Body)
		}
	}
}

// With Redis gone (connection refused), every endpoint that needs it — an
// index request, stats, jobs, documents — is a 503 naming redis, with
// Retry-After; a search answers from Weaviate alone (search/degraded.go),
// over REST and MCP.
func TestRedisUnreachableIs503(t *testing.T) {
	t.Parallel()
	url, kill := testenv.StartRedis(t)
	cfg := stack.Config(t)
	cfg.Redis.URL = url
	s := stack.Start(t, cfg, true)
	indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")
	cs := mcpSession(t, s)
	kill()
	if r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "kelp"}); r.Status != http.StatusOK || r.JSON["count"] != 1.0 {
		t.Errorf("a search with Redis gone: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/tools/rag_index", map[string]any{"text": "Kelp forests grow along cold coasts."}},
		{http.MethodGet, "/tools/rag_stats", nil},
		{http.MethodGet, "/jobs", nil},
		{http.MethodGet, "/documents", nil},
		{http.MethodGet, "/documents/0123456789abcdef0123456789abcdef", nil},
		{http.MethodDelete, "/documents/0123456789abcdef0123456789abcdef", nil},
	} {
		want503(t, c.method+" "+c.path, s.Do(t, c.method, c.path, c.body), "redis")
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "kelp"}})
	if err != nil || res.IsError {
		t.Errorf("core_retrieve_text with Redis gone: %v %+v", err, res)
	}
}

// hashVector is a fake embedder's vector of text: 8 numbers from its
// sha256, the same for the same text, none zero.
func hashVector(text string) []float32 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float32, 8)
	for j := range v {
		v[j] = float32(sum[j]) + 1
	}
	return v
}
