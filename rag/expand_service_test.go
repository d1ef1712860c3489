package rag_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"ragd/internal/stack"
	"ragd/rag"
)

// index stores text in namespace kb and waits for the job.
func index(t *testing.T, s *stack.Stack, kb, text string) {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": kb, "wait": true})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
}

func search(t *testing.T, s *stack.Stack, kb, query, mode string) []rag.Result {
	t.Helper()
	k := 10
	resp, err := s.Service.Search(context.Background(), rag.SearchRequest{Query: query, KBName: kb, Mode: mode, TopK: &k})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return resp.Results
}

// A word's variants are found through the vocabulary learned at ingest,
// right after the ingest, and only while stem expansion is on.
func TestStemExpansionFindsVariantsAfterIngest(t *testing.T) {
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	index(t, s, "docs", "The serialization format stays stable across releases.")
	index(t, s, "docs", "Lighthouses guide ships along the coast at night.")

	got := search(t, s, "docs", "serializer", "keyword")
	if len(got) != 1 || got[0].KBName != "docs" {
		t.Fatalf("serializer with stem expansion: %+v, want the serialization passage", got)
	}
	s.Service.Retrieval.StemExpansion = false
	if got := search(t, s, "docs", "serializer", "keyword"); len(got) != 0 {
		t.Errorf("without expansion BM25 should not match serializer to serialization: %+v", got)
	}
}

// Pseudo-relevance feedback reads the first results of one namespace and
// searches that namespace again: another namespace full of the feedback
// words never leaks in.
func TestPRFNeverLeavesTheNamespace(t *testing.T) {
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	cfg.Search.PRF = true
	s := stack.Start(t, cfg, true)
	index(t, s, "alpha", "A binary heap keeps the smallest element at the root; it implements a priority queue.")
	index(t, s, "alpha", "Gardens need water in dry summers.")
	index(t, s, "beta", "Priority queue heap root element smallest binary: heap heap priority queue element root.")
	index(t, s, "beta", "Another heap of priority queue text about the root element of a binary heap.")

	for _, mode := range []string{"hybrid", "keyword"} {
		got := search(t, s, "alpha", "smallest heap element", mode)
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
	cfg := stack.Config(t)
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	index(t, s, "gone", "Readers read the serialization format.")
	key := cfg.Redis.KeyPrefix + ":vocab:gone"
	ctx := context.Background()
	if n, _ := s.Redis.HLen(ctx, key).Result(); n != 1 {
		t.Fatalf("vocabulary entries after ingest = %d, want 1", n)
	}
	if resp := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=gone", nil); resp.Status != http.StatusOK {
		t.Fatalf("clear: %d %s", resp.Status, resp.Body)
	}
	search(t, s, "gone", "reader", "keyword")
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
