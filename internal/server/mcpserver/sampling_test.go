package mcpserver_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
)

const standIn = "STAND-IN MODEL: a data race is two goroutines touching one variable without synchronization, one of them writing [1]."

// standInModel answers sampling requests as the client's model would,
// keeping what it was asked; with fail set it refuses as a user would,
// with empty it answers without any text.
type standInModel struct {
	mu    sync.Mutex
	asked []*sdk.CreateMessageParams
	fail  bool
	empty bool
}

func (m *standInModel) handle(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	m.mu.Lock()
	m.asked = append(m.asked, req.Params)
	m.mu.Unlock()
	if m.fail {
		return nil, errors.New("user rejected the sampling request")
	}
	if m.empty {
		return &sdk.CreateMessageResult{Role: "assistant", Model: "stand-in", Content: &sdk.TextContent{Text: " "}}, nil
	}
	return &sdk.CreateMessageResult{Role: "assistant", Model: "stand-in", Content: &sdk.TextContent{Text: standIn}}, nil
}

func (m *standInModel) requests() []*sdk.CreateMessageParams {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*sdk.CreateMessageParams(nil), m.asked...)
}

// connectSampling connects a client that offers sampling when m is set.
func connectSampling(t *testing.T, s *stack.Stack, version string, m *standInModel) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if m != nil {
		opts.CreateMessageHandler = m.handle
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-sampling-test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// samplingStack is a stack without a chat model holding go_mem.html in
// docs, and the text of the passage retrieval ranks first for the question.
func samplingStack(t *testing.T, stateless bool) (*stack.Stack, string) {
	root := docsRoot(t)
	cfg := stack.Config(t, root)
	cfg.MCP.Stateless = stateless
	s := stack.Start(t, cfg, true)
	cs := connectSampling(t, s, "2025-11-25", nil)
	if res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": filepath.Join(root, "go_mem.html"), "kb_name": "docs", "wait": true}); res.IsError || out["status"] != "completed" {
		t.Fatalf("ingest: %v %s", out, text(res))
	}
	res, out := call(t, cs, "core_retrieve_text", map[string]any{"query": "What is a data race?", "kb_name": "docs", "top_k": 1})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) != 1 {
		t.Fatalf("retrieve: %v", out)
	}
	return s, results[0].(map[string]any)["text"].(string)
}

// checkSampled asserts core_query's answer is the stand-in's, written from
// a grounded request holding the passages.
func checkSampled(t *testing.T, cs *sdk.ClientSession, m *standInModel, topPassage string) {
	t.Helper()
	res, out := call(t, cs, "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	sources, _ := out["sources"].([]any)
	if res.IsError || out["route"] != "sampling" || out["answer"] != standIn || len(sources) == 0 || out["fallback"] != nil {
		t.Fatalf("core_query: %v %s", out, text(res))
	}
	if first, _ := sources[0].(map[string]any); first["cited"] != true {
		t.Errorf("sources[0] is not marked cited by [1]: %v", first)
	}
	asked := m.requests()
	if len(asked) != 1 {
		t.Fatalf("the client's model was asked %d times, want once", len(asked))
	}
	p := asked[0]
	msg, _ := p.Messages[0].Content.(*sdk.TextContent)
	if !strings.Contains(p.SystemPrompt, "using only the numbered passages") || p.MaxTokens <= 0 || len(p.Messages) != 1 || msg == nil ||
		!strings.Contains(msg.Text, "Question: What is a data race?") || !strings.Contains(msg.Text, "[1] source: ") ||
		!strings.Contains(msg.Text, topPassage[:min(len(topPassage), 200)]) {
		t.Fatalf("sampling request without the passages: system %q, messages %+v", p.SystemPrompt, p.Messages)
	}
}

// On a stateful HTTP session (protocol 2025-11-25), core_query sends
// sampling/createMessage during the call; a client that refuses, answers
// no text or offers no sampling gets an extractive answer.
func TestSamplingOnAStatefulSession(t *testing.T) {
	t.Parallel()
	s, top := samplingStack(t, false)
	m := &standInModel{}
	checkSampled(t, connectSampling(t, s, "2025-11-25", m), m, top)

	refusing := &standInModel{fail: true}
	res, out := call(t, connectSampling(t, s, "2025-11-25", refusing), "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	fallback, _ := out["fallback"].(string)
	if res.IsError || out["route"] != "extractive" || !strings.Contains(fallback, "user rejected the sampling request") ||
		!strings.Contains(out["answer"].(string), "data race") || len(refusing.requests()) != 1 {
		t.Fatalf("refused sampling: %v %s", out, text(res))
	}

	// A reply without text is a failure too.
	empty := &standInModel{empty: true}
	res, out = call(t, connectSampling(t, s, "2025-11-25", empty), "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	fallback, _ = out["fallback"].(string)
	if res.IsError || out["route"] != "extractive" || !strings.Contains(fallback, "returned no text") || len(empty.requests()) != 1 {
		t.Fatalf("empty sampling reply: %v %s", out, text(res))
	}

	res, out = call(t, connectSampling(t, s, "2025-11-25", nil), "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	if res.IsError || out["route"] != "extractive" || out["fallback"] != nil {
		t.Fatalf("no sampling offered: %v %s", out, text(res))
	}
}

// On stateless HTTP (the default) with protocol 2026-07-28, the call ends
// input-required with the sampling request, and the client's retry with
// the model's reply gets the answer: no session needed.
func TestSamplingByMultiRoundTrip(t *testing.T) {
	t.Parallel()
	s, top := samplingStack(t, true)
	m := &standInModel{}
	cs := connectSampling(t, s, "2026-07-28", m)
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	checkSampled(t, cs, m, top)

	res, out := call(t, connectSampling(t, s, "2026-07-28", nil), "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	if res.IsError || out["route"] != "extractive" || out["fallback"] != nil {
		t.Fatalf("no sampling offered: %v %s", out, text(res))
	}
	// A legacy client on stateless HTTP cannot be asked: extractive.
	legacy := &standInModel{}
	res, out = call(t, connectSampling(t, s, "2025-11-25", legacy), "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	if res.IsError || out["route"] != "extractive" || len(legacy.requests()) != 0 {
		t.Fatalf("legacy client on stateless HTTP: %v %s", out, text(res))
	}
}
