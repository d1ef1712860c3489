package readme_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
)

// chatStandIn is a stand-in of an OpenAI-compatible chat server (Ollama's
// /v1/chat/completions, as OpenAI documents it): it answers every
// completion with one sentence citing [1], and counts the calls.
func chatStandIn(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.1",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "The ferry leaves the harbour at noon [1]."}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 9, "total_tokens": 19}})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// The README's quick start for a real model: an OpenAI-compatible
// embedder under embedders: and a chat model under llm:, then the live
// knowledge base switched to the embedder. What it says to expect holds:
// the switch completes and search runs on the new embedder, answers
// come from the chat model (route llm), citing their sources.
func TestReadmeQuickStartRealModel(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFile(t, filepath.Join(root, "ferry.md"), "# Ferry\n\nThe ferry leaves the harbour at noon, every day but Sunday.")
	embed := standin.NewEmbeddings(t, "nomic-embed-text", 64)
	chat, calls := chatStandIn(t)
	cfg := stack.Config(t, root)
	cfg.Embedders = map[string]config.Embed{"ollama": {Provider: "openai", BaseURL: embed.URL, Model: embed.Model}}
	cfg.LLM.BaseURL, cfg.LLM.Model = chat.URL+"/v1", "llama3.1"
	s := stack.Start(t, cfg, true)
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": "ferry.md", "kb_name": "docs", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	r := s.Do(t, http.MethodPost, "/embedder/switch", map[string]any{"to": "ollama"})
	if r.Status != http.StatusAccepted {
		t.Fatalf("switch: %d %s", r.Status, r.Body)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		r = s.Do(t, http.MethodGet, "/embedder", nil)
		if live, _ := r.JSON["live"].(map[string]any); live["name"] == "ollama" && r.JSON["switch"] == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the switch did not end within 2 minutes: %s", r.Body)
		}
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "when does the ferry leave", "kb_name": "docs", "mode": "vector"})
	if r.Status != http.StatusOK || r.JSON["count"].(float64) == 0 {
		t.Fatalf("vector search after the switch: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "when does the ferry leave?", "kb_name": "docs"})
	sources, _ := r.JSON["sources"].([]any)
	if r.Status != http.StatusOK || r.JSON["route"] != "llm" || !strings.Contains(r.JSON["answer"].(string), "[1]") || len(sources) == 0 || calls.Load() == 0 {
		t.Fatalf("rag_query with the chat model: %d %s", r.Status, r.Body)
	}
}
