package search_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"ragd"
	"ragd/internal/retrieval/search"
	"ragd/internal/testkit/stack"
)

// indexed stores text in namespace kb and returns its document id.
func indexed(t *testing.T, s *stack.Stack, kb, text string) string {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": kb, "wait": true})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	return resp.JSON["document_id"].(string)
}

func texts(rs []search.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Text
	}
	return out
}

const (
	puffins  = "Puffins nest in burrows on grassy sea cliffs."
	gannets  = "Gannets dive from thirty metres to catch mackerel."
	basalt   = "Basalt columns form as thick lava cools and cracks."
	lighthse = "The lighthouse keeper logs every passing ship."
)

// How a request is planned: each mode retrieves by what it is for, more
// phrasings are merged into one ranking, a scope narrows it to its
// documents, top_k bounds it, another namespace never shows, and a mode
// that does not exist is refused as invalid.
func TestSearchPlanning(t *testing.T) {
	t.Parallel()
	cfg := stack.ServiceConfig(t)
	cfg.Cache.Enabled = false
	s := stack.StartService(t, cfg, true)
	ids := map[string]string{}
	for _, text := range []string{puffins, gannets, basalt, lighthse} {
		ids[text] = indexed(t, s, "coast", text)
	}
	indexed(t, s, "inland", "Puffins are not found inland; mackerel neither.")
	ctx := context.Background()
	run := func(req search.RetrieveRequest) []search.Result {
		t.Helper()
		req.KBName = "coast"
		resp, err := s.Search.Search(ctx, req)
		if err != nil {
			t.Fatalf("search %+v: %v", req, err)
		}
		for _, r := range resp.Results {
			if r.KBName != "coast" {
				t.Fatalf("search %+v: a result of namespace %q: %q", req, r.KBName, r.Text)
			}
		}
		return resp.Results
	}
	for _, mode := range []string{"keyword", "vector", "hybrid"} {
		if got := run(search.RetrieveRequest{Query: "mackerel", Mode: mode}); len(got) == 0 || got[0].Text != gannets {
			t.Errorf("%s search for mackerel: %q, want the gannets first", mode, texts(got))
		}
	}
	if got := run(search.RetrieveRequest{Query: "zzyzx qwv", Mode: "keyword"}); len(got) != 0 {
		t.Errorf("keyword search for words no document holds: %q", texts(got))
	}

	// The second phrasing alone finds the basalt passage; merged, both
	// phrasings' best passages are in the first two.
	one, two := 1, 2
	got := run(search.RetrieveRequest{Query: "puffins burrows", Queries: []string{"lava cools"}, Mode: "keyword", TopK: &two})
	if len(got) != 2 || !slices.Contains(texts(got), puffins) || !slices.Contains(texts(got), basalt) {
		t.Errorf("two phrasings fused: %q, want the puffins and the basalt passages", texts(got))
	}

	got = run(search.RetrieveRequest{Query: "puffins mackerel lava ship", Mode: "hybrid", Scope: []string{ids[basalt], ids[lighthse]}})
	for _, r := range got {
		if r.DocumentID != ids[basalt] && r.DocumentID != ids[lighthse] {
			t.Errorf("scoped search returned %q from outside the scope", r.Text)
		}
	}
	if len(got) == 0 {
		t.Error("scoped search found nothing in its scope")
	}
	if got := run(search.RetrieveRequest{Query: "puffins mackerel lava ship", Mode: "hybrid", TopK: &one}); len(got) != 1 {
		t.Errorf("top_k 1: %d results", len(got))
	}

	_, err := s.Search.Search(ctx, search.RetrieveRequest{Query: "puffins", KBName: "coast", Mode: "telepathic"})
	if ragd.KindOf(err) != ragd.KindInvalid {
		t.Errorf("an unknown mode: %v, want invalid", err)
	}
}
