package rag

import (
	"context"

	"ragd"
	"ragd/auth"
	"ragd/jobs"
	"ragd/resilience"
)

// NamespaceStats counts one namespace's contents.
type NamespaceStats struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
}

// Statistics describes the store and the queue.
type Statistics struct {
	CollectionName string                    `json:"collection_name"`
	NumEntities    int                       `json:"num_entities"`
	MetricType     string                    `json:"metric_type"`
	Dimension      int                       `json:"dimension"`
	Embedder       string                    `json:"embedder"`
	Namespaces     map[string]NamespaceStats `json:"namespaces"`
	Queue          jobs.Stats                `json:"queue"`
}

// Stats answers GET /tools/rag_stats.
type Stats struct {
	Status     string     `json:"status"`
	Statistics Statistics `json:"statistics"`
}

// Stats counts documents and chunks per namespace and jobs per state.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	st := Statistics{CollectionName: s.Store.Collection(), MetricType: "cosine", Dimension: s.Embedder.Dimension(),
		Embedder: s.Embedder.Name(), Namespaces: map[string]NamespaceStats{}}
	known, err := s.Registry.Namespaces(ctx)
	if err != nil {
		return Stats{}, ragd.Unavailable("redis", err)
	}
	tenants, err := resilience.Do(ctx, s.Guards.Weaviate, s.Store.Namespaces)
	if err != nil {
		return Stats{}, err
	}
	caller := auth.FromContext(ctx)
	for _, ns := range sortedSet(append(known, tenants...)) {
		if !caller.Allows(ns) {
			continue
		}
		docs, err := s.Registry.List(ctx, ns)
		if err != nil {
			return Stats{}, ragd.Unavailable("redis", err)
		}
		chunks, err := resilience.Do(ctx, s.Guards.Weaviate, func(ctx context.Context) (int, error) {
			return s.Store.Count(ctx, ns, "")
		})
		if err != nil {
			return Stats{}, err
		}
		if len(docs) == 0 && chunks == 0 {
			continue // a cleared namespace
		}
		st.Namespaces[ns] = NamespaceStats{Documents: len(docs), Chunks: chunks}
		st.NumEntities += chunks
	}
	if st.Queue, err = s.Queue.Stats(); err != nil {
		return Stats{}, ragd.Unavailable("redis", err)
	}
	return Stats{Status: "success", Statistics: st}, nil
}
