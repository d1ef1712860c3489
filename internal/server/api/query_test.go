package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// indexText indexes text with tags and waits; it returns the document id.
func indexText(t *testing.T, s *stack.Stack, kb, text string, tags ...string) string {
	t.Helper()
	body := map[string]any{"text": text, "kb_name": kb, "wait": true}
	if len(tags) > 0 {
		body["tags"] = tags
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", body)
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	return str(resp.JSON, "document_id")
}

func searchBody(t *testing.T, s *stack.Stack, body map[string]any) []map[string]any {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_search", body)
	if resp.Status != http.StatusOK {
		t.Fatalf("rag_search %v: %d %s", body, resp.Status, resp.Body)
	}
	var out struct {
		Results []map[string]any `json:"results"`
	}
	_ = json.Unmarshal(resp.Body, &out)
	return out.Results
}

func docIDs(results []map[string]any) map[string]bool {
	m := map[string]bool{}
	for _, r := range results {
		m[str(r, "document_id")] = true
	}
	return m
}

var corpus = []struct{ text, tag string }{
	{"Photosynthesis converts sunlight, water and carbon dioxide into glucose and oxygen in the chloroplasts of plants.", "biology"},
	{"Mitochondria produce most of the chemical energy a cell needs, stored as adenosine triphosphate.", "biology"},
	{"The Treaty of Westphalia in 1648 ended the Thirty Years War and shaped the modern state system.", "history"},
	{"A compiler translates source code into machine code; the Go toolchain compiles packages separately.", "computing"},
	{"Garbage collection reclaims memory that a program no longer references, pausing briefly to mark live objects.", "computing"},
}

func TestRetrievalModesAndFilters(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	ids := make([]string, len(corpus))
	for i, c := range corpus {
		ids[i] = indexText(t, s, "sci", c.text, c.tag)
	}

	for _, mode := range []string{"hybrid", "vector", "keyword"} {
		r := searchBody(t, s, map[string]any{"query": "chloroplasts sunlight glucose", "kb_name": "sci", "mode": mode, "top_k": 2})
		if len(r) == 0 || str(r[0], "document_id") != ids[0] {
			t.Errorf("%s: top hit %v, want the photosynthesis document", mode, r)
		}
		for _, res := range r {
			if str(res, "summary") == "" || str(res, "source_type") != "txt" || str(res, "kb_name") != "sci" {
				t.Errorf("%s: result lacks fields: %v", mode, res)
			}
		}
	}
	// Keyword mode needs the word; vector mode finds the meaning without it.
	if r := searchBody(t, s, map[string]any{"query": "zzyzx", "kb_name": "sci", "mode": "keyword"}); len(r) != 0 {
		t.Errorf("keyword search for an absent word found %v", r)
	}

	// Filters: tags, scope, scope_filter.document_ids, source_types.
	r := searchBody(t, s, map[string]any{"query": "energy memory war", "kb_name": "sci", "top_k": 20,
		"scope_filter": map[string]any{"tags": []string{"computing"}}})
	if got := docIDs(r); len(got) != 2 || !got[ids[3]] || !got[ids[4]] {
		t.Errorf("tag filter: %v", got)
	}
	r = searchBody(t, s, map[string]any{"query": "energy memory war", "kb_name": "sci", "top_k": 20, "scope": []string{ids[2]}})
	if got := docIDs(r); len(got) != 1 || !got[ids[2]] {
		t.Errorf("scope: %v", got)
	}
	r = searchBody(t, s, map[string]any{"query": "energy memory war", "kb_name": "sci", "top_k": 20, "scope": []string{ids[1], ids[2]},
		"scope_filter": map[string]any{"document_ids": []string{ids[2], ids[3]}}})
	if got := docIDs(r); len(got) != 1 || !got[ids[2]] {
		t.Errorf("scope ∩ document_ids: %v", got)
	}
	r = searchBody(t, s, map[string]any{"query": "energy memory war", "kb_name": "sci", "scope": []string{ids[1]},
		"scope_filter": map[string]any{"document_ids": []string{ids[2]}}})
	if len(r) != 0 {
		t.Errorf("disjoint scope and document_ids: %v", r)
	}
	if r = searchBody(t, s, map[string]any{"query": "energy", "kb_name": "sci", "scope_filter": map[string]any{"source_types": []string{"pdf"}}}); len(r) != 0 {
		t.Errorf("source_types pdf: %v", r)
	}
	if r = searchBody(t, s, map[string]any{"query": "energy", "kb_name": "sci", "scope_filter": map[string]any{"source_types": []string{"txt"}}}); len(r) == 0 {
		t.Errorf("source_types txt: nothing")
	}
	for name, body := range map[string]map[string]any{
		"mode":         {"query": "a", "mode": "fuzzy"},
		"source_types": {"query": "a", "scope_filter": map[string]any{"source_types": []string{"exe"}}},
		"kb_names":     {"query": "a", "scope_filter": map[string]any{"kb_names": []string{"Not OK"}}},
		"scope":        {"query": "a", "scope": "doc1"},
	} {
		resp := s.Do(t, http.MethodPost, "/tools/rag_search", body)
		if resp.Status != 422 || !strings.Contains(string(resp.Body), name) {
			t.Errorf("invalid %s: %d %s", name, resp.Status, resp.Body)
		}
	}
}

func TestSearchAcrossNamespacesFusesRanks(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	indexText(t, s, "east", "Tea ceremonies in Kyoto follow strict etiquette for whisking matcha.")
	indexText(t, s, "east", "Sumo wrestling tournaments are held six times a year.")
	indexText(t, s, "west", "Afternoon tea in London is served with scones, clotted cream and jam.")
	indexText(t, s, "west", "Cricket matches can last five days.")

	r := searchBody(t, s, map[string]any{"query": "tea served etiquette", "top_k": 4,
		"scope_filter": map[string]any{"kb_names": []string{"east", "west"}}})
	if len(r) != 4 {
		t.Fatalf("want 4 results from two namespaces, got %d: %v", len(r), r)
	}
	byNS := map[string]int{}
	for _, res := range r {
		byNS[str(res, "kb_name")]++
	}
	if byNS["east"] != 2 || byNS["west"] != 2 {
		t.Fatalf("results by namespace %v", byNS)
	}
	// The two tea passages are each their namespace's best: RRF ranks them first.
	for _, res := range r[:2] {
		if !strings.Contains(strings.ToLower(str(res, "text")), "tea") {
			t.Errorf("top two should be the tea passages: %v", r)
		}
	}
	// RRF scores: 1/(60+1) for a first place.
	if sc := r[0]["score"].(float64); sc < 0.0163 || sc > 0.0165 {
		t.Errorf("RRF score of a first place = %v, want 1/61", sc)
	}
	// kb_name alone searches only that namespace.
	for _, res := range searchBody(t, s, map[string]any{"query": "tea", "kb_name": "west"}) {
		if str(res, "kb_name") != "west" {
			t.Errorf("kb_name west returned %v", res)
		}
	}
}

func TestQueryExtractiveOnRealCorpus(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	s := stack.Start(t, stack.Config(t, root), true)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "godoc"), "wait": true})
	if resp.Status != 200 {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	q := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "What is a data race?"})
	if q.Status != 200 || str(q.JSON, "route") != "extractive" {
		t.Fatalf("rag_query: %d %s", q.Status, q.Body)
	}
	answer := str(q.JSON, "answer")
	if !strings.Contains(answer, "A data race is defined as a write to a memory location happening concurrently") {
		t.Fatalf("answer lacks the definition: %s", answer)
	}
	var out struct {
		Sources []struct {
			Source string `json:"source"`
			Cited  bool   `json:"cited"`
		} `json:"sources"`
		Context []map[string]any `json:"context"`
		Steps   []any            `json:"steps"`
	}
	_ = json.Unmarshal(q.Body, &out)
	cited := 0
	for _, src := range out.Sources {
		if src.Cited {
			cited++
			if !strings.HasSuffix(src.Source, "go_mem.html") {
				t.Errorf("cited %s", src.Source)
			}
		}
	}
	if cited == 0 || len(out.Context) != len(out.Sources) || out.Steps == nil {
		t.Fatalf("sources %+v, context %d, steps %v", out.Sources, len(out.Context), out.Steps)
	}
	// Every [n] in the answer points at a source.
	for i := 1; i <= 20; i++ {
		if strings.Contains(answer, "["+strconv.Itoa(i)+"]") && i > len(out.Sources) {
			t.Errorf("citation [%d] but %d sources", i, len(out.Sources))
		}
	}
	// Nothing relevant: an explicit not-found answer.
	nf := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "best chocolate cake recipe"})
	if str(nf.JSON, "route") != "not_found" || !strings.Contains(str(nf.JSON, "answer"), "do not contain") {
		t.Fatalf("unrelated question: %s", nf.Body)
	}
	// include_sources:false omits them.
	ns := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "What is a data race?", "include_sources": false})
	if srcs, _ := ns.JSON["sources"].([]any); len(srcs) != 0 {
		t.Fatalf("include_sources false: %s", ns.Body)
	}
}
