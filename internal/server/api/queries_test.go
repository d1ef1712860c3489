package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

const (
	lighthouse = "Lighthouses guide ships along the coast at night."
	leaves     = "Photosynthesis lets chlorophyll in green leaves turn sunlight into sugar."
)

// phrasingsStack indexes two passages that share no word, with query
// expansion off so that only the words searched can find a passage.
func phrasingsStack(t *testing.T) *stack.Stack {
	t.Helper()
	cfg := stack.Config(t)
	cfg.Search.StemExpansion, cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion = false, false, false
	s := stack.Start(t, cfg, true)
	indexText(t, s, "kb", lighthouse)
	indexText(t, s, "kb", leaves)
	indexText(t, s, "kb", "Basalt columns form when thick lava flows cool and contract slowly.")
	return s
}

// A passage only the second phrasing's words match is found when the
// phrasing comes in queries, by rag_search and rag_query alike, and not
// from the cache of the same query searched without it.
func TestQueriesFindWhatOnlyAnotherPhrasingMatches(t *testing.T) {
	t.Parallel()
	s := phrasingsStack(t)
	alone := searchBody(t, s, map[string]any{"query": "lighthouses coast", "kb_name": "kb", "mode": "keyword"})
	if got := texts(alone); len(got) != 1 || got[0] != lighthouse {
		t.Fatalf("the query alone: %q, want the lighthouse passage only", got)
	}
	both := searchBody(t, s, map[string]any{"query": "lighthouses coast", "queries": []string{"chlorophyll sunlight"}, "kb_name": "kb", "mode": "keyword"})
	if got := texts(both); len(got) != 2 || !slices.Contains(got, lighthouse) || !slices.Contains(got, leaves) {
		t.Fatalf("with another phrasing: %q, want both passages", got)
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "lighthouses coast",
		"queries": []string{"chlorophyll sunlight"}, "kb_name": "kb", "mode": "keyword"})
	if resp.Status != http.StatusOK || !strings.Contains(fmt.Sprint(resp.JSON["context"]), "chlorophyll") {
		t.Errorf("rag_query with another phrasing: %d, context %v", resp.Status, resp.JSON["context"])
	}
}

// A hit several phrasings find is returned once, and phrasings that repeat
// the query (ignoring case and spacing) add nothing.
func TestQueriesFuseDuplicatesOnce(t *testing.T) {
	t.Parallel()
	s := phrasingsStack(t)
	got := searchBody(t, s, map[string]any{"query": "lighthouses coast", "kb_name": "kb", "mode": "keyword",
		"queries": []string{"Lighthouses   COAST", "ships coast at night", "lighthouses guide ships"}})
	if len(got) != 1 || str(got[0], "text") != lighthouse {
		t.Fatalf("%q, want the lighthouse passage once", texts(got))
	}
}

// Bad phrasings are refused with 422 naming the phrasing at fault.
func TestQueriesValidation(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	long := strings.Repeat("x", 4001)
	for _, tc := range []struct {
		queries []any
		loc     string
		msg     string
	}{
		{[]any{"a", "b", "c", "d", "e", "f"}, "body queries", "queries holds 6 phrasings; at most 5 are searched"},
		{[]any{"fine", "   "}, "body queries 1", "queries[1] is empty: give each phrasing some words, or leave it out"},
		{[]any{long}, "body queries 0", "queries[0] is longer than 4000 characters"},
	} {
		for _, path := range []string{"/tools/rag_search", "/tools/rag_query"} {
			resp := s.Do(t, http.MethodPost, path, map[string]any{"query": "q", "queries": tc.queries})
			detail, _ := resp.JSON["detail"].([]any)
			if resp.Status != http.StatusUnprocessableEntity || len(detail) != 1 {
				t.Errorf("%s %d phrasings: %d %s", path, len(tc.queries), resp.Status, resp.Body)
				continue
			}
			d := detail[0].(map[string]any)
			if loc := strings.Trim(fmt.Sprint(d["loc"]), "[]"); loc != tc.loc || d["msg"] != tc.msg {
				t.Errorf("%s: loc %q msg %q, want %q %q", path, loc, d["msg"], tc.loc, tc.msg)
			}
		}
	}
	// A phrasing that is not a string is a decoding error, also 422.
	if resp := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "q", "queries": []any{7}}); resp.Status != http.StatusUnprocessableEntity {
		t.Errorf("queries [7]: %d %s", resp.Status, resp.Body)
	}
}
