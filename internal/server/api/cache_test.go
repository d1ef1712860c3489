package api_test

import (
	"bufio"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// metricValue reads one sample from /metrics ("" labels match the first).
func metricValue(t *testing.T, s *stack.Stack, name, labels string) float64 {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/metrics", nil)
	sc := bufio.NewScanner(strings.NewReader(string(resp.Body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name+"{") && strings.Contains(line, labels) || line == name+" " {
			f, _ := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			return f
		}
	}
	return 0
}

func cacheHits(t *testing.T, s *stack.Stack, tool string) float64 {
	return metricValue(t, s, "ragd_cache_lookups_total", `result="hit",tool="`+tool+`"`)
}

// A repeated search is a cache hit; an ingest into its namespace makes the
// next search a miss that sees the new document; another namespace's cache
// is untouched.
func TestCacheHitAndInvalidation(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	indexText(t, s, "a", "Basalt columns form when thick lava flows cool and contract slowly.")
	indexText(t, s, "b", "Basalt is a dark volcanic rock rich in iron and magnesium.")
	query := map[string]any{"query": "basalt lava", "kb_name": "a", "top_k": 5}
	other := map[string]any{"query": "basalt lava", "kb_name": "b", "top_k": 5}

	first := searchBody(t, s, query)
	searchBody(t, s, other)
	if h := cacheHits(t, s, "rag_search"); h != 0 {
		t.Fatalf("hits before any repeat: %v", h)
	}
	second := searchBody(t, s, query)
	searchBody(t, s, other)
	if h := cacheHits(t, s, "rag_search"); h != 2 {
		t.Fatalf("hits after repeating both: %v, want 2", h)
	}
	if len(first) != 1 || len(second) != 1 || str(first[0], "id") != str(second[0], "id") {
		t.Fatalf("cached result differs: %v vs %v", first, second)
	}
	keys, err := s.Redis.Keys(t.Context(), s.Config.Redis.KeyPrefix+":{a}:cache:*:rag_search:*").Result()
	if err != nil || len(keys) != 1 || !regexp.MustCompile(`:\{a\}:cache:\d+:rag_search:[0-9a-f]{64}$`).MatchString(keys[0]) {
		t.Fatalf("cache key: %v, %v", keys, err)
	}
	if ttl := s.Redis.TTL(t.Context(), keys[0]).Val(); ttl <= 0 || ttl > s.Config.Cache.TTL {
		t.Fatalf("cache TTL %s", ttl)
	}

	indexText(t, s, "a", "Lava tubes are caves left behind when basalt lava drains away.")
	third := searchBody(t, s, query)
	if len(third) != 2 {
		t.Fatalf("search right after an ingest returned the old cached answer: %v", third)
	}
	if h := cacheHits(t, s, "rag_search"); h != 2 {
		t.Fatalf("the search after an ingest was a hit")
	}
	searchBody(t, s, other)
	if h := cacheHits(t, s, "rag_search"); h != 3 {
		t.Fatalf("namespace b's cache should have survived an ingest into a (hits %v)", h)
	}
	// Empty results are not cached.
	searchBody(t, s, map[string]any{"query": "zzyzx", "kb_name": "a", "mode": "keyword"})
	searchBody(t, s, map[string]any{"query": "zzyzx", "kb_name": "a", "mode": "keyword"})
	if h := cacheHits(t, s, "rag_search"); h != 3 {
		t.Fatalf("an empty result was served from the cache")
	}
	// rag_query is cached too, and a delete invalidates it.
	q1 := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "How do basalt columns form?", "kb_name": "a"})
	s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "How do basalt columns form?", "kb_name": "a"})
	if h := cacheHits(t, s, "rag_query"); h != 1 {
		t.Fatalf("rag_query hits %v", h)
	}
	srcs, _ := q1.JSON["sources"].([]any)
	doc := str(srcs[0].(map[string]any), "document_id")
	if del := s.Do(t, http.MethodDelete, "/documents/"+doc+"?kb_name=a", nil); del.Status != 200 {
		t.Fatalf("delete: %d %s", del.Status, del.Body)
	}
	q3 := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "How do basalt columns form?", "kb_name": "a"})
	if strings.Contains(string(q3.Body), doc) || cacheHits(t, s, "rag_query") != 1 {
		t.Fatalf("query after delete still sees the deleted document: %s", q3.Body)
	}
}

// With Redis unreachable for the cache, search still answers.
func TestSearchAnswersWhenCacheRedisIsDown(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	indexText(t, s, "default", "Obsidian is volcanic glass formed by rapid cooling.")
	svc := *s.Search
	svc.Cache = deadCache(t)
	r, err := svc.Search(t.Context(), searchReq("obsidian glass"))
	if err != nil || r.Count != 1 {
		t.Fatalf("search with the cache's Redis down: %+v, %v", r, err)
	}
}
