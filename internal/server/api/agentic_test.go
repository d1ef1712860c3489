package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// scriptedChat speaks the OpenAI chat-completions wire format with tool
// calls: a stand-in for a hosted model. What it does depends on a keyword in
// the question: DOCS and WEB call that tool then answer, DIRECT answers at
// once, BADARGS sends malformed arguments, LOOP never stops calling tools,
// FAIL answers 500.
type scriptedChat struct {
	requests atomic.Int64
	sawTools atomic.Int64 // requests that offered tools
}

type chatMsg struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

func (f *scriptedChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	var req struct {
		Messages []chatMsg        `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	if len(req.Tools) > 0 {
		f.sawTools.Add(1)
	}
	question := ""
	var toolResults []string
	for _, m := range req.Messages {
		if m.Role == "user" && question == "" {
			question = m.Content
		}
		if m.Role == "tool" {
			toolResults = append(toolResults, m.Content)
		}
	}
	reply := func(msg map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}
	call := func(name, args string) {
		reply(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
			"id": fmt.Sprintf("call_%d", len(toolResults)), "type": "function", "function": map[string]any{"name": name, "arguments": args}}}})
	}
	answer := func(s string) { reply(map[string]any{"role": "assistant", "content": s}) }
	switch {
	case strings.Contains(question, "FAIL"):
		http.Error(w, `{"error":{"message":"model crashed"}}`, 500)
	case strings.Contains(question, "DIRECT"):
		answer("Paris is the capital of France.")
	case len(req.Tools) == 0:
		answer(fmt.Sprintf("Forced to answer after %d tool results.", len(toolResults)))
	case strings.Contains(question, "LOOP"):
		call("search_documents", `{"query":"lighthouse"}`)
	case strings.Contains(question, "BADARGS") && len(toolResults) == 0:
		call("search_documents", `{"query": "lighthouse"`)
	case strings.Contains(question, "BADARGS"):
		answer("The tool call failed: " + toolResults[0])
	case strings.Contains(question, "WEB") && len(toolResults) == 0:
		call("search_web", `{"query":"harbour news","max_results":2}`)
	case strings.Contains(question, "DOCS") && len(toolResults) == 0:
		call("search_documents", `{"query":"Fresnel lamp keeper","top_k":3}`)
	default:
		answer("From the results: " + firstLine(toolResults[len(toolResults)-1]) + " [1]")
	}
}

func firstLine(s string) string {
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) > 1 {
		return strings.TrimSpace(lines[1])
	}
	return s
}

// fakeSearXNG answers SearXNG's JSON API: a stand-in for a search instance.
func fakeSearXNG(t *testing.T, hits *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format", 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"results":[{"title":"Harbour reopens","url":"https://news.example/harbour","content":"The harbour reopened today after storm repairs."},`+
			`{"title":"Tide tables","url":"https://tides.example/","content":"Tide tables for the week."}]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func agenticStack(t *testing.T, withModel bool) (*stack.Stack, *scriptedChat, *atomic.Int64) {
	chat := &scriptedChat{}
	var webHits atomic.Int64
	cfg := stack.Config(t)
	if withModel {
		srv := httptest.NewServer(chat)
		t.Cleanup(srv.Close)
		cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "scripted", 2*time.Second
	}
	cfg.WebSearch.SearXNGURL = fakeSearXNG(t, &webHits)
	cfg.Resilience.MaxRetries = 0
	cfg.Answer.AgentMaxSteps = 3
	s := stack.Start(t, cfg, true)
	indexText(t, s, "default", "The lighthouse keeper lights the Fresnel lamp at dusk every evening.")
	return s, chat, &webHits
}

type agenticResp struct {
	Answer   string
	Route    string
	Fallback string
	Steps    []struct {
		Tool        string
		Args        map[string]any
		ResultCount int `json:"result_count"`
		Error       string
	}
	Sources []struct {
		Source string
		Cited  bool
	}
}

func ask(t *testing.T, s *stack.Stack, q, mode string) agenticResp {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": q, "mode": mode})
	if resp.Status != 200 {
		t.Fatalf("%s: %d %s", q, resp.Status, resp.Body)
	}
	var out agenticResp
	_ = json.Unmarshal(resp.Body, &out)
	return out
}

func TestAgenticWithModel(t *testing.T) {
	t.Parallel()
	s, chat, webHits := agenticStack(t, true)

	r := ask(t, s, "DOCS: when is the lamp lit?", "agentic")
	if r.Route != "documents" || len(r.Steps) != 1 || r.Steps[0].Tool != "search_documents" || r.Steps[0].ResultCount != 1 ||
		!strings.Contains(r.Answer, "Fresnel") || !r.Sources[0].Cited {
		t.Fatalf("documents route: %+v", r)
	}
	r = ask(t, s, "WEB: what happened at the harbour today?", "agentic")
	if r.Route != "web" || r.Steps[0].Tool != "search_web" || r.Steps[0].ResultCount != 2 || webHits.Load() != 1 ||
		r.Sources[0].Source != "https://news.example/harbour" || !r.Sources[0].Cited {
		t.Fatalf("web route: %+v", r)
	}
	r = ask(t, s, "DIRECT: what is the capital of France?", "agentic")
	if r.Route != "direct" || len(r.Steps) != 0 || r.Answer != "Paris is the capital of France." {
		t.Fatalf("direct answer: %+v", r)
	}
	r = ask(t, s, "BADARGS please", "agentic")
	if len(r.Steps) != 1 || !strings.Contains(r.Steps[0].Error, "invalid arguments") || !strings.Contains(r.Answer, "invalid arguments") {
		t.Fatalf("malformed tool-call arguments: %+v", r)
	}
	before := chat.requests.Load()
	r = ask(t, s, "LOOP forever", "agentic")
	if len(r.Steps) != 3 || r.Answer != "Forced to answer after 3 tool results." || chat.requests.Load()-before != 4 {
		t.Fatalf("bounded loop: %d steps, %d model calls, answer %q", len(r.Steps), chat.requests.Load()-before, r.Answer)
	}
	// A model that fails: the rule-based router stands in, and steps say so
	// (naming the dependency; its own words stay in the log).
	r = ask(t, s, "FAIL: what is the latest harbour news?", "agentic")
	if r.Route != "web" || !strings.Contains(r.Fallback, "llm is unavailable") || strings.Contains(r.Fallback, "model crashed") ||
		r.Steps[0].Tool != "router" || r.Steps[1].Tool != "search_web" {
		t.Fatalf("model failure: %+v", r)
	}
	// mode auto picks the agentic path when a model is configured.
	if r = ask(t, s, "DIRECT again", "auto"); r.Route != "direct" {
		t.Fatalf("auto with a model: %+v", r)
	}
}

func TestAgenticWithoutModelUsesRules(t *testing.T) {
	t.Parallel()
	s, _, webHits := agenticStack(t, false)
	r := ask(t, s, "What is the latest news from the harbour today?", "agentic")
	if r.Route != "web" || webHits.Load() != 1 || r.Steps[0].Tool != "router" || !strings.Contains(r.Fallback, "no chat model") {
		t.Fatalf("recency question: %+v", r)
	}
	r = ask(t, s, "When does the keeper light the Fresnel lamp?", "agentic")
	if r.Route != "documents" || !strings.Contains(r.Answer, "Fresnel") || r.Steps[1].Tool != "search_documents" {
		t.Fatalf("document question: %+v", r)
	}
	// mode auto without a model is plain retrieval with an extractive answer.
	if r = ask(t, s, "When does the keeper light the Fresnel lamp?", "auto"); r.Route != "extractive" {
		t.Fatalf("auto without a model: %+v", r)
	}
}

func TestWebSearchJSONRPCAndStream(t *testing.T) {
	t.Parallel()
	s, _, _ := agenticStack(t, false)
	resp := s.Do(t, http.MethodPost, "/", []byte(`[{"jsonrpc":"2.0","id":1,"method":"search","params":{"topic":"harbour","max_results":1}},`+
		`{"jsonrpc":"2.0","method":"search","params":{"topic":"x"}},{"jsonrpc":"2.0","id":2,"method":"nope"}]`))
	var batch []struct {
		ID     float64
		Result struct{ Results []map[string]any }
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal(resp.Body, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch: %v %s", err, resp.Body)
	}
	if len(batch[0].Result.Results) != 1 || batch[1].Error == nil || batch[1].Error.Code != -32601 {
		t.Fatalf("batch answers: %s", resp.Body)
	}
	if info := s.Do(t, http.MethodGet, "/", nil); str(info.JSON, "name") != "ragd" {
		t.Fatalf("GET / must keep answering the server info: %s", info.Body)
	}
	stream, err := http.Get(s.URL + "/stream?topic=harbour&max_results=2")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := readSSE(t, bufioScanner(stream))
	if len(events) != 3 || events[0].name != "message" || events[2].name != "end" || !strings.Contains(events[0].data, `"index":0`) {
		t.Fatalf("stream events: %+v", events)
	}
}
