package access_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"ragd/internal/testkit/standin"
)

// Every REST read path shows each key exactly the documents it may see:
// searches in every mode (several phrasings, MMR, the cache warmed by
// another audience first and hit on the second round), answers and their
// sources, the document list and each document, and the statistics.
func TestRESTReadPaths(t *testing.T) {
	t.Parallel()
	k := start(t)
	searches := []map[string]any{
		{"mode": "hybrid"}, {"mode": "keyword"}, {"mode": "vector"},
		{"mode": "hybrid", "queries": []string{"lighthouse harbour notes", "report of the harbour"}},
	}
	for round := range 2 { // the second round is answered from the cache
		for _, token := range keyOrder {
			want := sees[token]
			for _, extra := range searches {
				body := map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10}
				for k, v := range extra {
					body[k] = v
				}
				r := call(t, k.s, token, http.MethodPost, "/tools/rag_search", body)
				if r.Status != http.StatusOK {
					t.Fatalf("search %v as %s: %d %s", extra, keyName[token], r.Status, r.Body)
				}
				if got := k.names(field(r.JSON["results"], "document_id")); !slices.Equal(got, want) {
					t.Fatalf("round %d, search %v as %s: documents %v, want %v", round, extra, keyName[token], got, want)
				}
			}
			checkAnswer(t, k, token)
		}
	}
	for _, token := range keyOrder {
		checkDocuments(t, k, token)
		checkStats(t, k, token)
	}
}

// checkAnswer: rag_query's context and sources hold only visible
// documents, and its text no hidden document's own word.
func checkAnswer(t *testing.T, k *kb, token string) {
	t.Helper()
	r := call(t, k.s, token, http.MethodPost, "/tools/rag_query", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10})
	if r.Status != http.StatusOK {
		t.Fatalf("rag_query as %s: %d %s", keyName[token], r.Status, r.Body)
	}
	want := sees[token]
	for _, list := range []string{"context", "sources"} {
		if got := k.names(field(r.JSON[list], "document_id")); !slices.Equal(got, want) {
			t.Fatalf("rag_query as %s: %s from %v, want %v", keyName[token], list, got, want)
		}
	}
	answer, _ := r.JSON["answer"].(string)
	for name, text := range docTexts {
		own := strings.Fields(text)[4] // the document's own subject word
		if !slices.Contains(want, name) && strings.Contains(answer, own) {
			t.Fatalf("rag_query as %s: the answer quotes hidden document %s: %s", keyName[token], name, answer)
		}
	}
}

// checkDocuments: the list and its total count only visible documents;
// a hidden one answers exactly as a missing one.
func checkDocuments(t *testing.T, k *kb, token string) {
	t.Helper()
	want := sees[token]
	r := call(t, k.s, token, http.MethodGet, "/documents?kb_name="+ns, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /documents as %s: %d %s", keyName[token], r.Status, r.Body)
	}
	if got := k.names(field(r.JSON["documents"], "document_id")); !slices.Equal(got, want) || int(r.JSON["total"].(float64)) != len(want) {
		t.Fatalf("GET /documents as %s: %v (total %v), want %v", keyName[token], got, r.JSON["total"], want)
	}
	// Pages of one document each add up to the same list.
	var paged []string
	for offset := 0; offset < 10; offset++ {
		p := call(t, k.s, token, http.MethodGet, fmt.Sprintf("/documents?kb_name=%s&limit=1&offset=%d", ns, offset), nil)
		paged = append(paged, field(p.JSON["documents"], "document_id")...)
		if p.JSON["next_offset"] == nil {
			break
		}
	}
	if got := k.names(paged); !slices.Equal(got, want) || len(paged) != len(want) {
		t.Fatalf("GET /documents page by page as %s: %v, want %v", keyName[token], got, want)
	}
	missing := call(t, k.s, token, http.MethodGet, "/documents/0123456789abcdef0123456789abcdef?kb_name="+ns, nil)
	for name, id := range k.ids {
		for _, q := range []string{"?kb_name=" + ns, ""} {
			r := call(t, k.s, token, http.MethodGet, "/documents/"+id+q, nil)
			visible := slices.Contains(want, name)
			switch {
			case visible && r.Status != http.StatusOK:
				t.Fatalf("GET /documents/%s%s as %s: %d %s", name, q, keyName[token], r.Status, r.Body)
			case !visible && (r.Status != http.StatusNotFound ||
				strings.ReplaceAll(string(r.Body), id, "X") != strings.ReplaceAll(string(missing.Body), "0123456789abcdef0123456789abcdef", "X") && q != ""):
				t.Fatalf("GET hidden /documents/%s%s as %s: %d %s (a missing one: %d %s)", name, q, keyName[token], r.Status, r.Body,
					missing.Status, missing.Body)
			}
		}
	}
}

// checkStats: rag_stats counts the documents (and their chunks) the key
// may see.
func checkStats(t *testing.T, k *kb, token string) {
	t.Helper()
	r := call(t, k.s, token, http.MethodGet, "/tools/rag_stats", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("rag_stats as %s: %d %s", keyName[token], r.Status, r.Body)
	}
	stats, _ := r.JSON["statistics"].(map[string]any)
	nss, _ := stats["namespaces"].(map[string]any)
	acl, _ := nss[ns].(map[string]any)
	if docs, chunks := acl["documents"], acl["chunks"]; docs != float64(len(sees[token])) || chunks != float64(len(sees[token])) {
		t.Fatalf("rag_stats as %s: %v documents, %v chunks; want %d of each", keyName[token], docs, chunks, len(sees[token]))
	}
}

// The ranking stages after the store — a reranker (a TEI stand-in),
// MMR, pseudo-relevance feedback — see only what the store let through.
func TestRankingStagesKeepToAccess(t *testing.T) {
	t.Parallel()
	rr := standin.NewReranker(t, standin.WireTEI, func(_, text string) float64 { return 1 / float64(len(text)) })
	cfg := authConfig(t)
	cfg.Rerank.Enabled, cfg.Rerank.BaseURL, cfg.Rerank.Candidates, cfg.Rerank.Format = true, rr.URL, 10, "tei"
	cfg.Search.MMR, cfg.Search.PRF = true, true
	k := startWith(t, cfg)
	for _, token := range keyOrder {
		for _, mode := range []string{"hybrid", "keyword"} {
			r := call(t, k.s, token, http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10, "mode": mode})
			if got := k.names(field(r.JSON["results"], "document_id")); r.Status != http.StatusOK || !slices.Equal(got, sees[token]) {
				t.Fatalf("reranked %s search as %s: %d %v, want %v", mode, keyName[token], r.Status, got, sees[token])
			}
		}
	}
	if len(rr.Requests()) == 0 {
		t.Fatal("the reranker was never asked")
	}
}
