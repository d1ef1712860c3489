package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/adapter/embed"
	"ragd/internal/adapter/llm"
	"ragd/internal/adapter/websearch"
	"ragd/internal/platform/config"
	"ragd/internal/platform/resilience"
)

// The margins: a dependency answers after slow; the timeout that must
// bound the call is either short (it fails well before slow) or long (the
// answer arrives well within it), and the other setting is the opposite.
const (
	short = 200 * time.Millisecond
	slow  = time.Second
	long  = 5 * time.Second
)

// standIn answers the embeddings, chat and SearXNG wire formats after
// delay, as a slow provider would; a chat request for a stream gets eight
// pieces, one every 100 ms.
func standIn(t *testing.T, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Input  []string `json:"input"`
			Stream bool     `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body.Stream {
			streamPieces(w, r)
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(delay):
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/embeddings"):
			data := make([]map[string]any, len(body.Input))
			for i := range data {
				data[i] = map[string]any{"embedding": []float32{1, 2, 3, 4}, "index": i}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{
				{"message": map[string]any{"role": "assistant", "content": "late"}, "finish_reason": "stop"}}})
		default: // SearXNG's /search?format=json
			_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]any{
				{"title": "Kelp", "url": "https://example.org/kelp", "content": "Kelp grows on cold coasts."}}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func streamPieces(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	for i := 0; i < 8; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n")
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// testConfig sets tool_timeout, which must bound nothing, and one retry.
func testConfig(toolTimeout time.Duration) config.Config {
	cfg := config.Default()
	cfg.Resilience.ToolTimeout, cfg.Resilience.MaxRetries = toolTimeout, 1
	return cfg
}

// wantTimedOut checks err is the guard's timeout of dep, reached well
// before the slow answer would have come (once per attempt).
func wantTimedOut(t *testing.T, dep string, err error, took time.Duration) {
	t.Helper()
	if ragd.KindOf(err) != ragd.KindUnavailable || !errors.Is(err, context.DeadlineExceeded) || took > 3*time.Second {
		t.Fatalf("%s after %s: %v, want the guard's timeout", dep, took, err)
	}
}

func TestEachGuardHasItsDependencysTimeout(t *testing.T) {
	cfg := testConfig(time.Hour)
	cfg.Weaviate.Timeout, cfg.Embed.Timeout, cfg.LLM.Timeout = 11*time.Second, 12*time.Second, 13*time.Second
	cfg.WebSearch.Timeout, cfg.Rerank.Timeout = 14*time.Second, 15*time.Second
	g := newGuards(cfg, resilience.Hooks{})
	for _, c := range []struct {
		g    *resilience.Guard
		want time.Duration
	}{{g.Weaviate, 11 * time.Second}, {g.Embedder, 12 * time.Second}, {g.LLM, 13 * time.Second},
		{g.WebSearch, 14 * time.Second}, {g.Reranker, 15 * time.Second}} {
		if c.g.Timeout() != c.want {
			t.Errorf("%s: timeout %s, want %s", c.g.Name(), c.g.Timeout(), c.want)
		}
	}
	cfg.Weaviate.Timeout, cfg.Embed.Timeout = 0, 0 // accepted by the config: the clients' old 60 s
	g = newGuards(cfg, resilience.Hooks{})
	if g.Weaviate.Timeout() != time.Minute || g.Embedder.Timeout() != time.Minute {
		t.Errorf("unset: weaviate %s, embedder %s", g.Weaviate.Timeout(), g.Embedder.Timeout())
	}
}

func guardedEmbedder(t *testing.T, cfg config.Config) ragd.Embedder {
	cfg.Embed.Provider, cfg.Embed.Model, cfg.Embed.Dimension = "openai", "stand-in", 4
	e, err := newEmbedder(context.Background(), cfg, cfg.Embed)
	if err != nil {
		t.Fatal(err)
	}
	return embed.Guarded(e, newGuards(cfg, resilience.Hooks{}).Embedder)
}

// embed.timeout, not tool_timeout, bounds an embedding call: a slow answer
// within it arrives, one past it fails at embed.timeout.
func TestEmbedCallIsBoundedByEmbedTimeout(t *testing.T) {
	cfg := testConfig(short)
	cfg.Embed.BaseURL, cfg.Embed.Timeout = standIn(t, slow)+"/v1", long
	if v, err := guardedEmbedder(t, cfg).Embed(context.Background(), []string{"kelp"}); err != nil || len(v) != 1 {
		t.Fatalf("embed.timeout %s, answer after %s: %v", long, slow, err)
	}
	cfg = testConfig(long)
	cfg.Embed.BaseURL, cfg.Embed.Timeout = standIn(t, long)+"/v1", short
	start := time.Now()
	_, err := guardedEmbedder(t, cfg).Embed(context.Background(), []string{"kelp"})
	wantTimedOut(t, "embedder", err, time.Since(start))
}

func guardedWeb(t *testing.T, cfg config.Config) websearch.Provider {
	p, err := newWebSearch(cfg.WebSearch)
	if err != nil {
		t.Fatal(err)
	}
	return websearch.Guarded(p, newGuards(cfg, resilience.Hooks{}).WebSearch)
}

// websearch.timeout, not tool_timeout, bounds a web search.
func TestWebSearchIsBoundedByWebSearchTimeout(t *testing.T) {
	cfg := testConfig(short)
	cfg.WebSearch.SearXNGURL, cfg.WebSearch.Timeout = standIn(t, slow), long
	if r, err := guardedWeb(t, cfg).Search(context.Background(), "kelp", 3); err != nil || len(r) != 1 {
		t.Fatalf("websearch.timeout %s, answer after %s: %v %v", long, slow, r, err)
	}
	cfg = testConfig(long)
	cfg.WebSearch.SearXNGURL, cfg.WebSearch.Timeout = standIn(t, long), short
	start := time.Now()
	_, err := guardedWeb(t, cfg).Search(context.Background(), "kelp", 3)
	wantTimedOut(t, "websearch", err, time.Since(start))
}

func guardedModel(t *testing.T, cfg config.Config) ragd.ChatModel {
	cfg.LLM.Model = "stand-in"
	m, err := newChatModel(cfg.LLM)
	if err != nil {
		t.Fatal(err)
	}
	return llm.Guarded(m, newGuards(cfg, resilience.Hooks{}).LLM)
}

// llm.timeout bounds a completion; a stream it bounds only per piece, so
// one longer than llm.timeout in all is not cut off.
func TestChatCallsAreBoundedByLLMTimeout(t *testing.T) {
	question := ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "Where does kelp grow?"}}}
	cfg := testConfig(long)
	cfg.LLM.BaseURL, cfg.LLM.Timeout = standIn(t, long)+"/v1", 400*time.Millisecond
	start := time.Now()
	_, err := guardedModel(t, cfg).Complete(context.Background(), question)
	wantTimedOut(t, "llm", err, time.Since(start))
	// 8 pieces 100 ms apart: twice llm.timeout in all, never a pause that long.
	resp, err := guardedModel(t, cfg).Stream(context.Background(), question, nil)
	if err != nil || resp.Message.Content != "xxxxxxxx" {
		t.Fatalf("stream: %q, %v", resp.Message.Content, err)
	}
}

func TestToolTimeoutIsWarnedAbout(t *testing.T) {
	var buf strings.Builder
	warnToolTimeout(config.Resilience{ToolTimeout: 30 * time.Second}, slog.New(slog.NewTextHandler(&buf, nil)))
	if !strings.Contains(buf.String(), "resilience.tool_timeout is no longer used") {
		t.Fatalf("log: %q", buf.String())
	}
	buf.Reset()
	warnToolTimeout(config.Default().Resilience, slog.New(slog.NewTextHandler(&buf, nil)))
	if buf.Len() != 0 {
		t.Fatalf("the default warned: %q", buf.String())
	}
}
