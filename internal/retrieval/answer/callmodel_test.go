package answer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"ragd/wire"

	"ragd"
	"ragd/internal/retrieval/search"
)

// fixedRetriever finds the same passages for every question.
type fixedRetriever struct{ hits []ragd.Hit }

func (f fixedRetriever) Plan(_ context.Context, req search.RetrieveRequest) (search.Plan, error) {
	return search.Plan{Query: req.Query, TopK: 5, Namespaces: []string{"default"}}, nil
}
func (f fixedRetriever) EmbedQuery(context.Context, string) ([]float32, error) {
	return []float32{1, 0}, nil
}
func (f fixedRetriever) Retrieve(context.Context, search.Plan, []float32, bool) ([]ragd.Hit, error) {
	return f.hits, nil
}
func (f fixedRetriever) Diverse(p search.Plan) search.Plan { return p }

// model answers with text (or fails with err), counting its calls and
// keeping the last request.
type model struct {
	name, route, text string
	err               error
	calls             int
	last              ragd.ChatRequest
}

func (m *model) Model() string { return m.name }
func (m *model) Route() string { return m.route }
func (m *model) Complete(_ context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	m.calls++
	m.last = req
	if m.err != nil {
		return ragd.ChatResponse{}, m.err
	}
	return ragd.ChatResponse{Message: ragd.ChatMessage{Role: ragd.RoleAssistant, Content: m.text}}, nil
}
func (m *model) Stream(ctx context.Context, req ragd.ChatRequest, onDelta func(string) error) (ragd.ChatResponse, error) {
	return m.Complete(ctx, req)
}

func service(llm ragd.ChatModel) *Service {
	hits := []ragd.Hit{{Chunk: ragd.Chunk{ID: "c1", DocumentID: "d1", Source: "manual.md", Path: "Manual > Races",
		Text: "A data race is two unsynchronized accesses to one variable, at least one a write.", Vector: []float32{1, 0}}, Score: 0.9}}
	return &Service{Search: fixedRetriever{hits}, LLM: llm, Settings: Settings{MinScore: 0.1, MaxSentences: 3},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func query(t *testing.T, s *Service, m CallModel) (QueryResponse, error) {
	t.Helper()
	req := QueryRequest{QueryRequest: wire.QueryRequest{RetrieveRequest: search.RetrieveRequest{Query: "What is a data race?"}}}
	if m != nil {
		req.Model = m
	}
	return s.Query(context.Background(), req, nil)
}

// With no chat model configured, a call's model writes the grounded
// answer from the passages, under its own route.
func TestCallModelWritesTheAnswer(t *testing.T) {
	client := &model{name: "mcp-sampling", route: RouteSampling, text: "Two unsynchronized accesses, one a write [1]."}
	resp, err := query(t, service(nil), client)
	if err != nil || resp.Route != RouteSampling || resp.Answer != client.text || !resp.Sources[0].Cited || resp.Fallback != "" {
		t.Fatalf("%+v %v", resp, err)
	}
	if len(client.last.Messages) != 2 || !strings.Contains(client.last.Messages[1].Content, "[1] source: manual.md") ||
		!strings.Contains(client.last.Messages[1].Content, "two unsynchronized accesses") {
		t.Fatalf("the model was not given the passages: %+v", client.last.Messages)
	}
}

// A configured chat model takes precedence: the call's model is not asked.
func TestConfiguredModelBeforeCallModel(t *testing.T) {
	server := &model{name: "server-model", text: "The server's answer [1]."}
	client := &model{name: "mcp-sampling", route: RouteSampling, text: "unused"}
	resp, err := query(t, service(server), client)
	if err != nil || resp.Route != RouteLLM || resp.Answer != server.text || client.calls != 0 || server.calls != 1 {
		t.Fatalf("%+v %v (client asked %d times)", resp, err, client.calls)
	}
}

// A call's model that fails leaves an extractive answer that says why; a
// deferred one ends the query with ErrDeferred and no answer.
func TestCallModelFailureAndDeferral(t *testing.T) {
	client := &model{name: "mcp-sampling", route: RouteSampling, err: errors.New("user declined")}
	resp, err := query(t, service(nil), client)
	if err != nil || resp.Route != RouteExtractive || !strings.Contains(resp.Fallback, "user declined") ||
		!strings.Contains(resp.Fallback, "client's model") || !strings.Contains(resp.Answer, "data race") {
		t.Fatalf("%+v %v", resp, err)
	}
	deferred := &model{name: "mcp-sampling", route: RouteSampling, err: fmt.Errorf("ask later: %w", ErrDeferred)}
	if resp, err := query(t, service(nil), deferred); !errors.Is(err, ErrDeferred) || resp.Answer != "" {
		t.Fatalf("deferred: %+v %v", resp, err)
	}
	if resp, err := query(t, service(nil), nil); err != nil || resp.Route != RouteExtractive || resp.Fallback != "" {
		t.Fatalf("no model at all: %+v %v", resp, err)
	}
}
