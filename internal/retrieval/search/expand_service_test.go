package search_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"ragd/internal/platform/keyspace"
	"ragd/internal/retrieval/search"
	"ragd/internal/testkit/stack"
)

// index stores text in namespace kb and waits for the job.
func index(t *testing.T, s *stack.Stack, kb, text string) {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": kb, "wait": true})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
}

func find(t *testing.T, s *stack.Stack, kb, query, mode string) []search.Result {
	t.Helper()
	k := 10
	resp, err := s.Search.Search(context.Background(), search.RetrieveRequest{Query: query, KBName: kb, Mode: mode, TopK: &k})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return resp.Results
}

// A word's variants are found through the vocabulary learned at ingest,
// right after the ingest, and only while stem expansion is on.
func TestStemExpansionFindsVariantsAfterIngest(t *testing.T) {
	cfg := stack.ServiceConfig(t)
	cfg.Cache.Enabled = false
	cfg.Search.StemExpansion = true // off by default (docs/RETRIEVAL.md)
	checkExpansionBridges(t, stack.StartService(t, cfg, true), "The serialization format stays stable across releases.", "serializer",
		func(r *search.Retrieval) { r.StemExpansion = false })
}

// checkExpansionBridges indexes passage and an unrelated one in namespace
// docs, then checks that a keyword search for query — which passage does
// not contain — finds passage alone, and finds nothing once off has
// switched the expansion under test off.
func checkExpansionBridges(t *testing.T, s *stack.Stack, passage, query string, off func(*search.Retrieval)) {
	t.Helper()
	index(t, s, "docs", passage)
	index(t, s, "docs", "Lighthouses guide ships along the coast at night.")
	if got := find(t, s, "docs", query, "keyword"); len(got) != 1 || got[0].Text != passage || got[0].KBName != "docs" {
		t.Fatalf("%s with expansion: %+v, want %q alone", query, got, passage)
	}
	off(&s.Search.Retrieval)
	if got := find(t, s, "docs", query, "keyword"); len(got) != 0 {
		t.Errorf("%s without the expansion: %+v, want no match (BM25 alone cannot bridge the words)", query, got)
	}
}

// Pseudo-relevance feedback reads the first results of one namespace and
// searches that namespace again: another namespace full of the feedback
// words never leaks in.
func TestPRFNeverLeavesTheNamespace(t *testing.T) {
	cfg := stack.ServiceConfig(t)
	cfg.Cache.Enabled = false
	cfg.Search.PRF = true
	s := stack.StartService(t, cfg, true)
	index(t, s, "alpha", "A binary heap keeps the smallest element at the root; it implements a priority queue.")
	index(t, s, "alpha", "Gardens need water in dry summers.")
	index(t, s, "beta", "Priority queue heap root element smallest binary: heap heap priority queue element root.")
	index(t, s, "beta", "Another heap of priority queue text about the root element of a binary heap.")

	for _, mode := range []string{"hybrid", "keyword"} {
		got := find(t, s, "alpha", "smallest heap element", mode)
		if len(got) == 0 {
			t.Fatalf("%s: no results in alpha", mode)
		}
		for _, r := range got {
			if r.KBName != "alpha" {
				t.Errorf("%s: result from namespace %q: %q", mode, r.KBName, r.Text)
			}
		}
	}
}

// The vocabulary goes with the namespace: after a clear, the next search
// drops the statistics of documents the registry no longer holds.
func TestVocabularyClearedWithNamespace(t *testing.T) {
	cfg := stack.ServiceConfig(t)
	cfg.Cache.Enabled = false
	s := stack.StartService(t, cfg, true)
	index(t, s, "gone", "Readers read the serialization format.")
	key := keyspace.New(cfg.Redis.KeyPrefix).Vocabulary("gone")
	ctx := context.Background()
	if n, _ := s.Redis.HLen(ctx, key).Result(); n != 1 {
		t.Fatalf("vocabulary entries after ingest = %d, want 1", n)
	}
	if resp := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=gone", nil); resp.Status != http.StatusOK {
		t.Fatalf("clear: %d %s", resp.Status, resp.Body)
	}
	find(t, s, "gone", "reader", "keyword")
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, _ := s.Redis.Exists(ctx, key).Result()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("vocabulary of a cleared namespace still in Redis")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WordNet synonym expansion finds a passage by a word it never uses —
// priority for a passage saying precedence — through the vocabulary
// learned at ingest, and only while synonym expansion is on. Stem
// expansion is off so the synonym is the only way in.
func TestSynonymExpansionFindsPassageByWordNetSynonym(t *testing.T) {
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	cfg.Search.StemExpansion = false
	cfg.Search.SynonymExpansion = true // off by default (docs/RETRIEVAL.md)
	s := stack.Start(t, cfg, true)
	if s.Search.Thesaurus == nil {
		t.Fatal("WordNet not loaded from the test stack's search.wordnet_dir")
	}
	checkExpansionBridges(t, s, "Tasks are served in order of precedence.", "priority",
		func(r *search.Retrieval) { r.SynonymExpansion, r.KeywordSynonymExpansion = false, false })
}

// With keyword_synonym_expansion on, keyword-mode searches are expanded
// with synonyms and hybrid ones are not; off (the default:
// it lost recall on a question set ragd was not tuned on) turns it off.
func TestKeywordSynonymExpansionKeywordModeOnly(t *testing.T) {
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	cfg.Search.KeywordSynonymExpansion = true
	s := stack.Start(t, cfg, true)
	if s.Search.Thesaurus == nil {
		t.Fatal("WordNet not loaded with keyword_synonym_expansion on")
	}
	for mode, want := range map[string]bool{"keyword": true, "hybrid": false, "": false, "vector": false} {
		p, err := s.Search.Plan(context.Background(), search.RetrieveRequest{Query: "priority", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if p.Retrieval.SynonymExpansion != want {
			t.Errorf("mode %q: synonym expansion %v, want %v", mode, p.Retrieval.SynonymExpansion, want)
		}
	}
	checkExpansionBridges(t, s, "Tasks are served in order of precedence.", "priority",
		func(r *search.Retrieval) { r.KeywordSynonymExpansion = false })
}

// A passage is found by a word only its related words (WordNet's, stored
// at ingest) hold: precedence relates priority to it. The related-words
// search stays in the namespace — another one saying priority itself
// never leaks in — ranks a passage using the word itself first, and is
// off at weight 0. Query-side expansion is off so only the ingest side
// can match.
func TestRelatedWordsFindPassage(t *testing.T) {
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	cfg.Ingest.RelatedWords = true
	cfg.Search.RelatedWeight = 0.5
	cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion = false, false
	// Stem expansion off too: related words must be searched even when
	// no query-side expansion is on.
	cfg.Search.StemExpansion = false
	s := stack.Start(t, cfg, true)
	const related = "Tasks are served in order of precedence."
	const plain = "Priority boarding starts at gate four."
	index(t, s, "docs", related)
	index(t, s, "docs", plain)
	index(t, s, "docs", "Lighthouses guide ships along the coast at night.")
	index(t, s, "decoy", "Priority priority priority: the decoy namespace says the word itself.")

	got := find(t, s, "docs", "priority", "keyword")
	for _, r := range got {
		if r.KBName != "docs" {
			t.Errorf("result from namespace %q: %q", r.KBName, r.Text)
		}
	}
	if len(got) != 2 || got[0].Text != plain || got[1].Text != related {
		t.Fatalf("priority with related words: %+v, want the passage saying priority, then the one saying precedence", got)
	}
	s.Search.Retrieval.RelatedWeight = 0
	got = find(t, s, "docs", "priority", "keyword")
	if len(got) != 1 || got[0].Text != plain {
		t.Errorf("related words at weight 0 still searched: %+v, want only the passage saying priority", got)
	}
}
