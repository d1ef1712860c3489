package api_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// The corpus of the rerank tests: five passages match "animal" (four of
// them many times, so BM25 ranks the zebra passage, which says it once,
// last of the five), two do not match at all.
var rerankCorpus = []string{
	"Animal animal animal: the animal shelter feeds every animal it houses, animal by animal.",
	"Animal welfare rules say an animal transport must rest each animal often; animal care matters.",
	"The animal clinic treats animal injuries; an animal doctor sees animal patients daily.",
	"Animal tracks in snow tell which animal passed: an animal guide reads animal signs.",
	"On the savanna a zebra grazes beside wildebeest while lions rest in the shade of acacia trees, one animal among many.",
	"Basalt columns form when thick lava flows cool and contract slowly.",
	"The recipe calls for two cups of flour and a pinch of salt.",
}

// zebraScore is the stand-in cross-encoder: the zebra passage is the most
// relevant, the others score by their length, shortest first.
func zebraScore(_, text string) float64 {
	if strings.Contains(text, "zebra") {
		return 0.99
	}
	return 1 / float64(len(text))
}

// rerankStack starts ragd with reranking on against a stand-in of wire
// (uncached, so every search reaches the reranker), indexes the corpus and
// returns the stack, the stand-in and the fused (unreranked) top 5 for
// "animal", read with the reranker taken out.
func rerankStack(t *testing.T, wire standin.RerankWire, edit func(*config.Config)) (*stack.Stack, *standin.Reranker, []map[string]any) {
	t.Helper()
	rr := standin.NewReranker(t, wire, zebraScore)
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	cfg.Rerank.Enabled, cfg.Rerank.BaseURL, cfg.Rerank.Candidates = true, rr.URL, 5
	cfg.Rerank.Format, cfg.Rerank.Model = "tei", ""
	if wire != standin.WireTEI {
		cfg.Rerank.Format, cfg.Rerank.Model, cfg.Rerank.APIKey = "cohere", "rerank-v3.5", "key"
	}
	if edit != nil {
		edit(&cfg)
	}
	s := stack.Start(t, cfg, true)
	for _, text := range rerankCorpus {
		indexText(t, s, "zoo", text)
	}
	reranker := s.Search.Reranker
	s.Search.Reranker = nil
	fused := searchBody(t, s, map[string]any{"query": "animal", "kb_name": "zoo", "mode": "keyword", "top_k": 5})
	s.Search.Reranker = reranker
	if len(fused) != 5 || !strings.Contains(str(fused[4], "text"), "zebra") {
		t.Fatalf("fused top 5 is not the corpus's five matches with the zebra last: %v", texts(fused))
	}
	return s, rr, fused
}

// With reranking on, a search hands the fused top rerank.candidates to the
// reranker (TEI and Cohere wire formats alike), and returns the best top_k
// by its scores, each keeping its fields with the reranker's score; answers
// (rag_query) are written from the reranked passages.
func TestRerankReordersFusedCandidatesIntoTopK(t *testing.T) {
	t.Parallel()
	for _, wire := range []standin.RerankWire{standin.WireTEI, standin.WireCohere} {
		t.Run(string(wire), func(t *testing.T) {
			s, rr, fused := rerankStack(t, wire, nil)
			before := len(rr.Requests())
			got := searchBody(t, s, map[string]any{"query": "animal", "kb_name": "zoo", "mode": "keyword", "top_k": 2})
			reqs := rr.Requests()[before:]
			if len(reqs) != 1 {
				t.Fatalf("the reranker was called %d times for one search", len(reqs))
			}
			list := "texts"
			if wire == standin.WireCohere {
				list = "documents"
			}
			sent := reqs[0].Body[list].([]any)
			if reqs[0].Body["query"] != "animal" || len(sent) != 5 {
				t.Fatalf("reranker got query %v and %d passages, want animal and the 5 candidates", reqs[0].Body["query"], len(sent))
			}
			for i, f := range fused {
				if sent[i] != str(f, "text") {
					t.Errorf("candidate %d sent %q, want the fused order's %q", i, sent[i], str(f, "text"))
				}
			}
			if len(got) != 2 {
				t.Fatalf("%d results, want top_k 2", len(got))
			}
			// Best by the stand-in: the zebra passage (0.99), then the
			// shortest of the others.
			want := []map[string]any{fused[4], shortest(fused[:4])}
			for i := range want {
				w := copyWithout(want[i], "score")
				if g := copyWithout(got[i], "score"); !reflect.DeepEqual(g, w) {
					t.Errorf("result %d: %v, want the fused hit's fields %v", i, g, w)
				}
				if score := got[i]["score"].(float64); score != zebraScore("", str(want[i], "text")) {
					t.Errorf("result %d scored %v, want the reranker's %v", i, score, zebraScore("", str(want[i], "text")))
				}
			}
			resp := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "animal", "kb_name": "zoo", "mode": "keyword", "top_k": 1})
			ctx, _ := resp.JSON["context"].([]any)
			if resp.Status != http.StatusOK || len(ctx) != 1 || !strings.Contains(fmt.Sprint(ctx[0]), "zebra") {
				t.Errorf("rag_query context %d %v, want the reranked zebra passage", resp.Status, ctx)
			}
		})
	}
}

// A reranker that fails — an error status, garbage, no answer within
// rerank.timeout — never fails the search: it answers in the fused order
// (same hits, same scores as without a reranker), each fallback counted.
// After resilience.circuit_fail_threshold failures its breaker opens
// (reported by /health) and searches stop calling it.
func TestRerankFailuresFallBackToTheFusedOrder(t *testing.T) {
	t.Parallel()
	s, rr, fused := rerankStack(t, standin.WireTEI, func(c *config.Config) {
		c.Rerank.Timeout = 300 * time.Millisecond
		c.Resilience.CircuitFailThreshold = 3
		c.Resilience.CircuitOpenFor = time.Hour
	})
	if st := breakerState(t, s, "reranker"); st != "closed" {
		t.Fatalf("reranker breaker %q before any failure", st)
	}
	for i, fail := range []struct {
		name   string
		status int
		body   string
		delay  time.Duration
	}{
		{"500", http.StatusInternalServerError, `{"error":"overloaded","error_type":"Overloaded"}`, 0},
		{"garbage", http.StatusOK, `<html>not json</html>`, 0},
		{"timeout", 0, "", 20 * time.Second},
		{"breaker open", http.StatusInternalServerError, "", 0},
	} {
		rr.Misbehave(fail.status, fail.body, fail.delay)
		calls := len(rr.Requests())
		start := time.Now()
		got := searchBody(t, s, map[string]any{"query": "animal", "kb_name": "zoo", "mode": "keyword", "top_k": 5})
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("%s: the search waited %s for the reranker", fail.name, took)
		}
		if !reflect.DeepEqual(got, fused) {
			t.Errorf("%s: %v, want the fused order %v", fail.name, texts(got), texts(fused))
		}
		if n := fallbacks(t, s); n != float64(i+1) {
			t.Errorf("%s: ragd_rerank_fallbacks_total %v, want %d", fail.name, n, i+1)
		}
		reached := len(rr.Requests()) > calls
		if open := fail.name == "breaker open"; reached == open {
			t.Errorf("%s: reranker reached %v", fail.name, reached)
		}
	}
	if st := breakerState(t, s, "reranker"); st != "open" {
		t.Errorf("reranker breaker %q after 3 failures, want open", st)
	}
}

// Reranking off (the default), the reranker's breaker is not reported: ragd
// does not use one.
func TestRerankOffByDefault(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	if s.Search.Reranker != nil || breakerState(t, s, "reranker") != "" {
		t.Errorf("reranker %v, breaker %q with reranking off", s.Search.Reranker, breakerState(t, s, "reranker"))
	}
}

// fallbacks reads ragd_rerank_fallbacks_total, a metric without labels.
func fallbacks(t *testing.T, s *stack.Stack) float64 {
	t.Helper()
	for _, line := range strings.Split(string(s.Do(t, http.MethodGet, "/metrics", nil).Body), "\n") {
		if v, ok := strings.CutPrefix(line, "ragd_rerank_fallbacks_total "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	t.Fatal("ragd_rerank_fallbacks_total is not exported")
	return 0
}

func texts(results []map[string]any) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = str(r, "text")
	}
	return out
}

func shortest(results []map[string]any) map[string]any {
	best := results[0]
	for _, r := range results[1:] {
		if len(str(r, "text")) < len(str(best, "text")) {
			best = r
		}
	}
	return best
}

func copyWithout(m map[string]any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
