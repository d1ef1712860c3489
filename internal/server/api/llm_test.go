package api_test

import (
	"bufio"
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

// fakeChat speaks the OpenAI chat-completions wire format: a stand-in for a
// hosted chat model. It answers from the first numbered passage it is given,
// citing it, or fails the way it is told to.
type fakeChat struct {
	mode     atomic.Value // "ok", "error500", "error400", "slow"
	requests atomic.Int64
	lastUser atomic.Value
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
		Stream   bool                             `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request"}}`, 400)
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	f.lastUser.Store(user)
	switch f.mode.Load() {
	case "error500":
		http.Error(w, `{"error":{"message":"the model is overloaded"}}`, 500)
		return
	case "error400":
		http.Error(w, `{"error":{"message":"model 'nope' not found"}}`, 400)
		return
	case "slow":
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	answer := "According to the documents, " + firstSentence(user) + " [1]"
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, part := range strings.SplitAfter(answer, " ") {
		chunk, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// firstSentence finds the first passage's text in the prompt and returns its
// first sentence, so the answer is grounded in what ragd sent.
func firstSentence(prompt string) string {
	i := strings.Index(prompt, "[1]")
	if i < 0 {
		return "nothing"
	}
	rest := prompt[i:]
	if nl := strings.Index(rest, "\n"); nl >= 0 {
		rest = rest[nl+1:]
	}
	if dot := strings.Index(rest, "."); dot >= 0 {
		rest = rest[:dot+1]
	}
	return strings.TrimSpace(rest)
}

func chatStack(t *testing.T) (*stack.Stack, *fakeChat) {
	fake := &fakeChat{}
	fake.mode.Store("ok")
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t)
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "fake-chat", 500*time.Millisecond
	cfg.Resilience.MaxRetries = 1
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	indexText(t, s, "default", "The lighthouse keeper lights the Fresnel lamp at dusk every evening. He logs passing ships.")
	indexText(t, s, "default", "Tides rise and fall twice a day because of the moon's gravity.")
	return s, fake
}

func TestQueryWithChatModel(t *testing.T) {
	t.Parallel()
	s, fake := chatStack(t)
	q := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "When does the keeper light the Fresnel lamp?"})
	if q.Status != 200 || str(q.JSON, "route") != "llm" || str(q.JSON, "fallback") != "" {
		t.Fatalf("rag_query: %d %s", q.Status, q.Body)
	}
	if !strings.Contains(str(q.JSON, "answer"), "lights the Fresnel lamp at dusk") || !strings.HasSuffix(str(q.JSON, "answer"), "[1]") {
		t.Fatalf("answer not grounded in the passage: %s", q.JSON["answer"])
	}
	srcs, _ := q.JSON["sources"].([]any)
	first, _ := srcs[0].(map[string]any)
	if first["cited"] != true || !strings.Contains(fake.lastUser.Load().(string), "Fresnel") {
		t.Fatalf("citation [1] should mark sources[0]: %s", q.Body)
	}

	// A model error (500, retried, still failing) falls back to an extractive
	// answer, saying which dependency failed (its words stay in the log).
	fake.mode.Store("error500")
	before := fake.requests.Load()
	q = s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "When does the keeper light the Fresnel lamp?"})
	if q.Status != 200 || str(q.JSON, "route") != "extractive" || !strings.Contains(str(q.JSON, "fallback"), "llm is unavailable") ||
		strings.Contains(str(q.JSON, "fallback"), "overloaded") {
		t.Fatalf("model 500: %d %s", q.Status, q.Body)
	}
	if n := fake.requests.Load() - before; n != 2 {
		t.Errorf("a transient model error should be tried twice (1 retry), was tried %d times", n)
	}
	// A request the model refuses (400) is not retried; what it said is an
	// internal error's text, for the log only.
	fake.mode.Store("error400")
	before = fake.requests.Load()
	q = s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "When is the lamp lit?"})
	if str(q.JSON, "route") != "extractive" || !strings.Contains(str(q.JSON, "fallback"), "the server logged the details") ||
		strings.Contains(str(q.JSON, "fallback"), "not found") || fake.requests.Load()-before != 1 {
		t.Fatalf("model 400: %s (tried %d)", q.Body, fake.requests.Load()-before)
	}
	// A model slower than llm.timeout falls back too, once the timeout fires.
	fake.mode.Store("slow")
	q = s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "Why do tides rise and fall?"})
	if str(q.JSON, "route") != "extractive" || !strings.Contains(str(q.JSON, "fallback"), "did not answer within") {
		t.Fatalf("slow model: %s", q.Body)
	}
}

func TestQueryStreamsServerSentEvents(t *testing.T) {
	t.Parallel()
	s, _ := chatStack(t)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/tools/rag_query",
		strings.NewReader(`{"query": "When does the keeper light the Fresnel lamp?", "stream": true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readSSE(t, bufio.NewScanner(resp.Body))
	var text strings.Builder
	deltas := 0
	for _, ev := range events[:len(events)-1] {
		if ev.name != "delta" {
			t.Fatalf("unexpected event %q before done", ev.name)
		}
		var d struct{ Text string }
		_ = json.Unmarshal([]byte(ev.data), &d)
		text.WriteString(d.Text)
		deltas++
	}
	last := events[len(events)-1]
	var done struct{ Answer, Route string }
	_ = json.Unmarshal([]byte(last.data), &done)
	if last.name != "done" || deltas < 3 || done.Route != "llm" || strings.TrimSpace(text.String()) != done.Answer {
		t.Fatalf("%d deltas %q, last %s %s", deltas, text.String(), last.name, last.data)
	}

	// Validation errors still get their status before any event.
	bad := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "", "stream": true})
	if bad.Status != 422 {
		t.Fatalf("stream with empty query: %d %s", bad.Status, bad.Body)
	}
}

type sseEvent struct{ name, data string }

// readSSE parses a text/event-stream per the HTML spec's line rules.
func readSSE(t *testing.T, sc *bufio.Scanner) []sseEvent {
	t.Helper()
	var events []sseEvent
	cur := sseEvent{name: "message"}
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				cur.data = strings.Join(data, "\n")
				events = append(events, cur)
			}
			cur, data = sseEvent{name: "message"}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			cur.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if len(events) == 0 {
		t.Fatal("no events")
	}
	return events
}

func bufioScanner(resp *http.Response) *bufio.Scanner { return bufio.NewScanner(resp.Body) }
