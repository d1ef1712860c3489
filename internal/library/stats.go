package library

import (
	"context"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs"
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
	tenants, err := s.Store.Namespaces(ctx)
	if err != nil {
		return Stats{}, err
	}
	caller := authn.FromContext(ctx)
	var names []string
	for _, ns := range union(known, tenants) {
		if caller.Allows(ns) {
			names = append(names, ns)
		}
	}
	counts, err := s.countNamespaces(ctx, names)
	if err != nil {
		return Stats{}, err
	}
	for i, ns := range names {
		if c := counts[i]; c.Documents == 0 && c.Chunks == 0 {
			continue // a cleared namespace
		}
		st.Namespaces[ns] = counts[i]
		st.NumEntities += counts[i].Chunks
	}
	// A limited key counts the jobs it may see of its own namespaces:
	// another's failing is none of its business.
	jobNS, _ := jobNamespaces(ctx, "") // nil for an operator: every namespace
	if st.Queue, err = s.Queue.Stats(ctx, jobNS); err != nil {
		return Stats{}, ragd.Unavailable("redis", err)
	}
	return Stats{Status: "success", Statistics: st}, nil
}

// statsConcurrency bounds how many namespaces are counted at once: enough to
// overlap their round trips, few enough not to crowd Redis and Weaviate.
const statsConcurrency = 8

// countNamespaces counts the namespaces a few at a time. It fails as
// counting them in turn would: with the error of the first namespace in
// order that fails, and starting no namespace after a failure. Nothing is
// cancelled, so no namespace fails merely because another did.
func (s *Service) countNamespaces(ctx context.Context, names []string) ([]NamespaceStats, error) {
	counts := make([]NamespaceStats, len(names))
	errs := make([]error, len(names))
	var failed atomic.Bool
	var g errgroup.Group
	g.SetLimit(statsConcurrency)
	for i, ns := range names {
		if failed.Load() {
			break
		}
		g.Go(func() error {
			counts[i], errs[i] = s.countNamespace(ctx, ns)
			if errs[i] != nil {
				failed.Store(true)
			}
			return nil // read from errs, in order
		})
	}
	_ = g.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// countNamespace counts one namespace's documents and chunks that the
// caller may see: the documents it may not, and their chunks, are left
// out of the counts. Chunks are the current versions' (the registry's
// counts), so a version still being written is not counted before it is
// made current, nor an old one before it is swept.
func (s *Service) countNamespace(ctx context.Context, ns string) (NamespaceStats, error) {
	docs, err := s.Registry.Count(ctx, ns)
	if err != nil {
		return NamespaceStats{}, ragd.Unavailable("redis", err)
	}
	hidden, err := s.Registry.Hidden(ctx, ns)
	if err != nil {
		return NamespaceStats{}, ragd.Unavailable("redis", err)
	}
	chunks, err := s.Registry.Chunks(ctx, ns)
	if err != nil {
		return NamespaceStats{}, ragd.Unavailable("redis", err)
	}
	docs -= len(hidden)
	for _, d := range hidden {
		chunks -= d.Chunks
	}
	return NamespaceStats{Documents: max(docs, 0), Chunks: max(chunks, 0)}, nil
}

// union is the sorted names found in the registry or the store, each once.
func union(registered, stored []string) []string {
	all := slices.Concat(registered, stored)
	slices.Sort(all)
	return slices.Compact(all)
}
