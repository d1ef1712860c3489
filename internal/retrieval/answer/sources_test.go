package answer

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ragd/wire"

	"ragd"
	"ragd/internal/retrieval/search"
)

// duplicateHits is a retrieval result listing one chunk twice, as fused
// phrasings or namespaces, or an agent's second search, can: chunk c1 is
// hits[0] and hits[2]. The texts are sentences of ragd's README.
func duplicateHits() []ragd.Hit {
	hit := func(id, path, text string) ragd.Hit {
		return ragd.Hit{Chunk: ragd.Chunk{ID: id, DocumentID: "readme", Namespace: "docs", Source: "README.md", Path: path,
			Text: text, Vector: []float32{1, 0}}, Score: 0.9}
	}
	c1 := hit("c1", "ragd > The two commands", "They start Redis and Weaviate themselves, wait until both answer and stop what they started when they exit.")
	return []ragd.Hit{
		c1,
		hit("c2", "ragd > Walk-through", "A whole directory fans out into one job per supported file; its job reports files done / total and lists its children."),
		c1,
		hit("c3", "ragd > Command line", "A Redis or Weaviate already answering on the make run ports is reused and left running."),
	}
}

const duplicateQuestion = "what do Redis and Weaviate do when they start"

// checkSources verifies that sources list each chunk once and that every
// citation [n] of answer names a source, flagged cited, whose chunk holds
// the sentence the marker ends when the answer is extractive.
func checkSources(t *testing.T, route string, sources []Source, answer string, extractive bool) {
	t.Helper()
	texts := map[string]string{}
	for _, h := range duplicateHits() {
		texts[h.ID] = h.Text
	}
	seen := map[string]int{}
	for i, s := range sources {
		if j, dup := seen[s.ChunkID]; dup {
			t.Errorf("%s: chunk %s is source [%d] and [%d]", route, s.ChunkID, j+1, i+1)
		}
		seen[s.ChunkID] = i
	}
	cited := map[int]bool{}
	for _, n := range Citations(answer, 1<<20) {
		if n > len(sources) {
			t.Errorf("%s: citation [%d] of %q names no source (%d listed)", route, n, answer, len(sources))
			continue
		}
		cited[n] = true
	}
	for i, s := range sources {
		if s.Cited != cited[i+1] {
			t.Errorf("%s: source [%d] cited=%v, the answer says %v: %q", route, i+1, s.Cited, cited[i+1], answer)
		}
	}
	if !extractive {
		return
	}
	rest := answer
	for _, m := range citationPattern.FindAllStringSubmatchIndex(answer, -1) {
		sentence := strings.TrimSpace(answer[len(answer)-len(rest) : m[0]])
		rest = answer[m[1]:]
		n, _ := strconv.Atoi(answer[m[2]:m[3]])
		if sentence != "" && n <= len(sources) && !strings.Contains(texts[sources[n-1].ChunkID], sentence) {
			t.Errorf("%s: %q is cited [%d], chunk %s, which does not hold it", route, sentence, n, sources[n-1].ChunkID)
		}
	}
}

// promptLabel matches a passage's number and section in a prompt or a
// search_documents result.
var promptLabel = regexp.MustCompile(`(?m)^\[(\d+)\] (?:source: )?README\.md(?: \| section: | — )(.+)$`)

// checkNumbering verifies that text (a prompt, a tool result) numbers each
// passage as sources do.
func checkNumbering(t *testing.T, route, text string, sources []Source) {
	t.Helper()
	labels := promptLabel.FindAllStringSubmatch(text, -1)
	if len(labels) == 0 {
		t.Fatalf("%s: no numbered passages in %q", route, text)
	}
	for _, m := range labels {
		n, _ := strconv.Atoi(m[1])
		if n > len(sources) || !strings.HasPrefix(m[2], sources[n-1].Path) {
			t.Errorf("%s: passage [%d] is %q, sources say %+v", route, n, m[2], sources)
		}
	}
	if strings.Count(text, duplicateHits()[0].Text) > 1 {
		t.Errorf("%s: the duplicate chunk's text is given twice:\n%s", route, text)
	}
}

func duplicateService(llm ragd.ChatModel) *Service {
	return &Service{Search: fixedRetriever{duplicateHits()}, LLM: llm, Settings: Settings{MinScore: 0.1, MaxSentences: 3, AgentMaxSteps: 4},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// A chunk retrieved twice is one source, and citations number the sources
// as listed, on every route: extractive, chat model, a client's model,
// answer ranking, the rule-based and the tool-calling agent, the kb_answer
// prompt.
func TestSourcesListEachChunkOnce(t *testing.T) {
	ctx := context.Background()
	ask := func(s *Service, mode string, m CallModel) QueryResponse {
		t.Helper()
		req := QueryRequest{QueryRequest: wire.QueryRequest{RetrieveRequest: search.RetrieveRequest{Query: duplicateQuestion, Mode: mode}}, Model: m}
		resp, err := s.Query(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	resp := ask(duplicateService(nil), "", nil)
	if resp.Route != RouteExtractive || len(resp.Sources) != 3 || len(resp.Context) != 3 {
		t.Errorf("extractive: route %s, %d sources, %d context results; want 3 of each", resp.Route, len(resp.Sources), len(resp.Context))
	}
	checkSources(t, "extractive", resp.Sources, resp.Answer, true)

	ranked := duplicateService(nil)
	ranked.Candidates = 2
	resp = ask(ranked, "", nil)
	checkSources(t, "ranked extractive", resp.Sources, resp.Answer, true)

	resp = ask(duplicateService(nil), ModeAgentic, nil)
	if len(resp.Sources) != 3 {
		t.Errorf("rule-based agent: %d sources, want 3", len(resp.Sources))
	}
	checkSources(t, "rule-based agent", resp.Sources, resp.Answer, true)

	// A model citing every passage it was given cites each source once.
	llm := &model{name: "chat", text: "Redis and Weaviate are started and stopped by the commands [1][2][3]."}
	resp = ask(duplicateService(llm), "", nil)
	checkSources(t, "chat model", resp.Sources, resp.Answer, false)
	checkNumbering(t, "chat model", llm.last.Messages[1].Content, resp.Sources)

	client := &model{name: "mcp-sampling", route: RouteSampling, text: "They are reused when running [3]."}
	resp = ask(duplicateService(nil), "", client)
	if !resp.Sources[2].Cited || resp.Sources[2].ChunkID != "c3" {
		t.Errorf("sampling: [3] should be chunk c3, cited: %+v", resp.Sources)
	}
	checkSources(t, "sampling", resp.Sources, resp.Answer, false)
	checkNumbering(t, "sampling", client.last.Messages[1].Content, resp.Sources)

	agent := &toolModel{searches: []string{"Redis Weaviate start", "Redis Weaviate running"}}
	resp = ask(duplicateService(agent), ModeAgentic, nil)
	if len(resp.Sources) != 3 {
		t.Errorf("tool-calling agent: %d sources for 3 chunks found twice over: %+v", len(resp.Sources), resp.Sources)
	}
	checkSources(t, "tool-calling agent", resp.Sources, resp.Answer, false)
	for _, result := range agent.results {
		checkNumbering(t, "tool-calling agent", result, resp.Sources)
	}

	p, err := duplicateService(nil).GroundedPrompt(ctx, search.RetrieveRequest{Query: duplicateQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 3 {
		t.Errorf("kb_answer prompt: %d sources, want 3", len(p.Sources))
	}
	checkSources(t, "kb_answer prompt", p.Sources, "", false)
	checkNumbering(t, "kb_answer prompt", p.Messages[1].Content, p.Sources)
}

// toolModel calls search_documents once per query in searches, then answers
// citing every passage number the searches returned.
type toolModel struct {
	searches []string
	results  []string // the tool results it read
}

func (m *toolModel) Model() string { return "tools" }
func (m *toolModel) Stream(ctx context.Context, req ragd.ChatRequest, _ func(string) error) (ragd.ChatResponse, error) {
	return m.Complete(ctx, req)
}
func (m *toolModel) Complete(_ context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	m.results = m.results[:0]
	for _, msg := range req.Messages {
		if msg.Role == ragd.RoleTool {
			m.results = append(m.results, msg.Content)
		}
	}
	if n := len(m.results); n < len(m.searches) && req.Tools != nil {
		call := ragd.ToolCall{ID: "call" + strconv.Itoa(n), Type: "function",
			Function: ragd.FunctionCall{Name: "search_documents", Arguments: `{"query": "` + m.searches[n] + `"}`}}
		return ragd.ChatResponse{Message: ragd.ChatMessage{Role: ragd.RoleAssistant, ToolCalls: []ragd.ToolCall{call}}}, nil
	}
	var cites strings.Builder
	for _, n := range Citations(strings.Join(m.results, "\n"), 1<<20) {
		cites.WriteString("[" + strconv.Itoa(n) + "]")
	}
	return ragd.ChatResponse{Message: ragd.ChatMessage{Role: ragd.RoleAssistant,
		Content: "Redis and Weaviate are started by the commands " + cites.String() + "."}}, nil
}
