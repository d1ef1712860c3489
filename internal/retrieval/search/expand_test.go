package search

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"ragd"

	"ragd/internal/adapter/llm"
	"ragd/internal/catalog/vocab"
	"ragd/internal/platform/resilience"
)

func TestExpansionNeverDropsTheQuery(t *testing.T) {
	query := "How do I cancel the readers' timeouts?"
	stats := vocab.NewStats(10, map[string]int{"reader": 2, "reading": 1, "timeout": 3, "cancelled": 1, "how": 9, "the": 10})
	e := newExpansion(query)
	expandStems(e, query, stats)
	e.add("timeouts", 1) // a query word: never added again
	e.add("the", 1)      // a stopword: never added
	text := e.text(query)
	if n := strings.Count(text, query); n != weightUnit {
		t.Errorf("expanded text holds the query %d times, want %d: %q", n, weightUnit, text)
	}
	for _, w := range vocab.Terms(query) {
		if !strings.Contains(strings.ToLower(text), w) {
			t.Errorf("original word %q dropped", w)
		}
	}
	added := strings.Fields(strings.ReplaceAll(text, query, ""))
	for _, w := range added {
		if e.query[w] || vocab.IsStopword(w) {
			t.Errorf("added %q: a query word or stopword", w)
		}
		if !stats.Has(w) {
			t.Errorf("added %q, which the namespace does not contain", w)
		}
	}
	// reader and reading share "readers"' stem, timeout "timeouts"';
	// each added word weighs stemWeight, so appears weightUnit/2 times.
	for _, w := range []string{"reader", "reading", "timeout"} {
		if n := countWord(added, w); n != weightUnit/2 {
			t.Errorf("%q appears %d times, want %d", w, n, weightUnit/2)
		}
	}
	if countWord(added, "cancelled") != 0 {
		t.Error("cancelled added for cancel: the light stemmer keeps a doubled l, so they are not variants")
	}
}

func countWord(words []string, w string) int {
	n := 0
	for _, x := range words {
		if x == w {
			n++
		}
	}
	return n
}

func TestExpansionWithoutWordsIsThePlainQuery(t *testing.T) {
	query := "heap invariant"
	e := newExpansion(query)
	expandStems(e, query, vocab.NewStats(1, map[string]int{"heap": 1, "invariant": 1}))
	if got := e.text(query); got != query {
		t.Errorf("nothing to add, text = %q: must be the query unchanged so scores equal plain search", got)
	}
}

func TestExpansionKeepsHighestWeight(t *testing.T) {
	e := newExpansion("q")
	e.add("csv", 0.2)
	e.add("csv", 0.5)
	e.add("csv", 0.1)
	e.add("rare", 0.01) // below one repetition: still added once
	if got := e.text("q"); strings.Count(got, "csv") != 3 || strings.Count(got, "rare") != 1 {
		t.Errorf("text = %q", got)
	}
}

// wordTable is an embedder with word vectors, like GloVe.
type wordTable map[string][]float32

func (w wordTable) Name() string                 { return "table" }
func (w wordTable) Dimension() int               { return 2 }
func (w wordTable) Vector(word string) []float32 { return w[word] }
func (w wordTable) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

func TestNeighbourExpansionAddsOnlyNamespaceWords(t *testing.T) {
	table := wordTable{
		"spreadsheet": {1, 0.1}, "csv": {1, 0.2}, "excel": {1, 0}, // near each other
		"comma": {0.7, 0.7}, "heap": {0, 1},
	}
	s := &Service{Embedder: table}
	v := &vocabulary{stats: vocab.NewStats(4, map[string]int{"csv": 1, "comma": 1, "heap": 2})}
	r := Retrieval{NeighbourTerms: 2, NeighbourMinSimilarity: 0.9}
	query := "spreadsheet export"
	e := newExpansion(query)
	s.expandNeighbours(e, query, v, r)
	if len(e.terms) != 1 || e.terms[0].word != "csv" {
		t.Fatalf("added %+v, want csv only (excel is not in the namespace, comma and heap not similar enough)", e.terms)
	}
	if w := e.terms[0].weight; w <= 0 || w > neighbourWeight {
		t.Errorf("weight %.2f, want similarity × %.2f", w, neighbourWeight)
	}
	if !strings.Contains(e.text(query), query) {
		t.Error("original query dropped")
	}
}

func TestFeedbackTerms(t *testing.T) {
	stats := vocab.NewStats(100, map[string]int{"heap": 2, "priority": 3, "queue": 5, "tree": 40, "go": 90, "slice": 2})
	hits := []ragd.Hit{
		chunkText("Package container/heap", "A heap is a common way to implement a priority queue, a tree in 2024."),
		chunkText("Package sort", "Sort a slice of go values."),
		chunkText("Package other", "zebra zebra zebra"), // beyond docs: never read
	}
	got := feedbackTerms(hits, 2, 3, stats, map[string]bool{"queue": true})
	total := 0.0
	for _, tm := range got {
		total += tm.weight
		switch tm.word {
		case "queue":
			t.Error("a query word came back as feedback")
		case "zebra":
			t.Error("feedback read a hit beyond the first docs")
		case "2024", "is", "a":
			t.Errorf("number or stopword %q picked", tm.word)
		}
	}
	if len(got) != 3 {
		t.Fatalf("got %d terms, want 3: %+v", len(got), got)
	}
	if got[0].word != "heap" && got[0].word != "slice" {
		t.Errorf("most distinctive first: got %+v", got)
	}
	if total < 0.999 || total > 1.001 {
		t.Errorf("weights sum to %.3f, want 1", total)
	}
}

func chunkText(path, text string) ragd.Hit {
	var h ragd.Hit
	h.Path, h.Text = path, text
	return h
}

// chatStandIn answers every chat completion with passage, recording the
// user messages it was sent; status other than 200 fails the call.
func chatStandIn(t *testing.T, passage string, status int) (*llm.Client, *[]string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []ragd.ChatMessage `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		asked = append(asked, req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"down"}}`, status)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion", "choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": passage}}}})
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: testenvName(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c, &asked
}

// testenvName is a model name unique to the test, so the process-wide
// rewrite cache never answers one test with another's passage.
func testenvName(t *testing.T) string { return "stand-in-" + t.Name() }

func TestRewriteAddsHypotheticalAnswerWords(t *testing.T) {
	client, asked := chatStandIn(t, "Package encoding/csv reads and writes comma-separated values (CSV) files.", http.StatusOK)
	policy := resilience.DefaultPolicy()
	policy.MaxRetries = 0
	s := &Service{Models: Models{Rewriter: llm.Guarded(client, resilience.New("llm", policy, llm.IsTransient, resilience.Hooks{}))},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	query := "How do I read a spreadsheet export?"
	for range 2 {
		e := newExpansion(query)
		s.expandRewrite(context.Background(), e, query)
		text := e.text(query)
		if strings.Count(text, query) != weightUnit {
			t.Fatalf("query dropped: %q", text)
		}
		for _, w := range []string{"csv", "comma", "separated", "encoding"} {
			if !slices.ContainsFunc(e.terms, func(tm term) bool { return tm.word == w && tm.weight == rewriteWeight }) {
				t.Errorf("%q of the hypothetical answer not added at weight %.1f: %+v", w, rewriteWeight, e.terms)
			}
		}
		if slices.ContainsFunc(e.terms, func(tm term) bool { return tm.word == "read" || tm.word == "the" }) {
			t.Error("a query word or stopword was added")
		}
	}
	if len(*asked) != 1 || (*asked)[0] != query {
		t.Errorf("chat model asked %q, want the query once (the second search uses the cached passage)", *asked)
	}
}

func TestRewriteFailureLeavesQueryAlone(t *testing.T) {
	client, _ := chatStandIn(t, "", http.StatusBadRequest)
	policy := resilience.DefaultPolicy()
	policy.MaxRetries = 0
	s := &Service{Models: Models{Rewriter: llm.Guarded(client, resilience.New("llm", policy, llm.IsTransient, resilience.Hooks{}))},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := newExpansion("q")
	s.expandRewrite(context.Background(), e, "q")
	if len(e.terms) != 0 || e.text("q") != "q" {
		t.Errorf("failed rewrite changed the query: %+v", e.terms)
	}
	none := newExpansion("q")
	(&Service{}).expandRewrite(context.Background(), none, "q") // no chat model: nothing to do
	if len(none.terms) != 0 {
		t.Errorf("rewrite without a chat model added %+v", none.terms)
	}
}
