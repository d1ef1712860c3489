package search

import (
	"context"
	"sync"

	"ragd/internal/catalog/vocab"
)

// vocabularies caches each namespace's vocabulary statistics in memory for
// the namespace generation they were loaded at: every ingest, delete or
// clear bumps the generation, so a search pays one Redis GET to learn the
// copy is current, and one load after each change.
type vocabularies struct {
	mu sync.Mutex
	m  map[string]*vocabulary
}

// vocabulary is one namespace's statistics at one generation, with the
// word vectors neighbour expansion builds from them on first use.
type vocabulary struct {
	gen   int64
	stats *vocab.Stats

	vectorsOnce sync.Once
	vectors     *wordIndex
}

// vocabsInit guards the lazy creation of a Service's vocabularies: the
// Service is built as a struct literal, and copied by value in places, so it
// holds a pointer rather than a lock.
var vocabsInit sync.Mutex

func (s *Service) vocabCache() *vocabularies {
	vocabsInit.Lock()
	defer vocabsInit.Unlock()
	if s.vocabs == nil {
		s.vocabs = &vocabularies{m: map[string]*vocabulary{}}
	}
	return s.vocabs
}

// vocabulary returns the namespace's statistics, or nil when none are kept
// or they cannot be read: expansion is then skipped, never the search.
func (s *Service) vocabulary(ctx context.Context, ns string) *vocabulary {
	if s.Vocab == nil {
		return nil
	}
	gen, err := s.Generations.Get(ctx, ns)
	if err != nil {
		s.Log.WarnContext(ctx, "query expansion skipped: namespace generation unreadable", "kb_name", ns, "error", err)
		return nil
	}
	cache := s.vocabCache()
	cache.mu.Lock()
	v := cache.m[ns]
	cache.mu.Unlock()
	if v != nil && v.gen == gen {
		return v
	}
	stats, err := s.Vocab.Load(ctx, ns, s.Registry.CurrentHashes)
	if err != nil {
		s.Log.WarnContext(ctx, "query expansion skipped: vocabulary unreadable", "kb_name", ns, "error", err)
		return nil
	}
	v = &vocabulary{gen: gen, stats: stats}
	cache.mu.Lock()
	cache.m[ns] = v
	cache.mu.Unlock()
	return v
}
