package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	ragdsearch "ragd/internal/retrieval/search"
	"ragd/internal/testkit/stack"
)

// ids returns n distinct document-id-shaped strings.
func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%032x", i)
	}
	return out
}

// Every list a retrieval request carries has a bound: one item more is a
// 422 naming the field, before any search (250,000 scope ids once,
// 8.8 MB, kept a core busy for 83 s, and on after the client hung up).
// At the bound, with repeats, a search still answers.
func TestRetrievalListsAreBounded(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	tags := func(n int) []string { return strings.Split(strings.Repeat("t,", n)[:2*n-1], ",") }
	kbs := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("kb%d", i)
		}
		return out
	}
	over := []struct {
		body map[string]any
		loc  []string
	}{
		{map[string]any{"scope": ids(ragdsearch.MaxScopeIDs + 1)}, []string{"body", "scope"}},
		{map[string]any{"scope": ids(250_000)}, []string{"body", "scope"}},
		{map[string]any{"scope_filter": map[string]any{"document_ids": ids(ragdsearch.MaxScopeIDs + 1)}}, []string{"body", "scope_filter", "document_ids"}},
		{map[string]any{"scope_filter": map[string]any{"tags": tags(ragdsearch.MaxFilterTags + 1)}}, []string{"body", "scope_filter", "tags"}},
		{map[string]any{"scope_filter": map[string]any{"kb_names": kbs(ragdsearch.MaxKBNames + 1)}}, []string{"body", "scope_filter", "kb_names"}},
		{map[string]any{"scope_filter": map[string]any{"source_types": strings.Split(strings.Repeat("pdf,", ragdsearch.MaxSourceTypes+1), ",")[:ragdsearch.MaxSourceTypes+1]}},
			[]string{"body", "scope_filter", "source_types"}},
		{map[string]any{"scope": []string{strings.Repeat("a", 257)}}, []string{"body", "scope"}},
		{map[string]any{"queries": []string{"a", "b", "c", "d", "e", "f"}}, []string{"body", "queries"}},
	}
	for _, path := range []string{"/tools/rag_search", "/tools/rag_query"} {
		for _, c := range over {
			c.body["query"] = "lighthouse"
			r := s.Do(t, http.MethodPost, path, c.body)
			var detail []struct{ Loc []string }
			_ = json.Unmarshal(mustField(t, r.JSON, "detail"), &detail)
			if r.Status != http.StatusUnprocessableEntity || len(detail) == 0 || !reflect.DeepEqual(detail[0].Loc, c.loc) {
				t.Errorf("%s %v: %d %.300s, want 422 at %v", path, c.loc, r.Status, r.Body, c.loc)
			}
		}
	}
	atBound := ids(2 * ragdsearch.MaxScopeIDs)
	r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "lighthouse", "scope": atBound[:ragdsearch.MaxScopeIDs],
		"scope_filter": map[string]any{"document_ids": atBound[ragdsearch.MaxScopeIDs/2 : ragdsearch.MaxScopeIDs/2+ragdsearch.MaxScopeIDs], "tags": tags(ragdsearch.MaxFilterTags)}})
	if r.Status != http.StatusOK {
		t.Errorf("lists at their bounds: %d %.300s", r.Status, r.Body)
	}
}

// mustField re-encodes m[k] (a decoded JSON body's field) for a typed decode.
func mustField(t *testing.T, m map[string]any, k string) []byte {
	t.Helper()
	b, err := json.Marshal(m[k])
	if err != nil {
		t.Fatal(err)
	}
	return b
}
