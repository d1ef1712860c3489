package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"

	"ragd"
)

// DocumentChunks returns up to limit chunks of one version of a document
// whose chunk_index is from or more, in chunk_index order: a filtered fetch
// sorted by the store, so a caller pages a document of any size by asking
// again from the last index + 1.
func (s *Store) DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return s.documentChunks(ctx, namespace, documentID, contentHash, from, limit, false)
}

// DocumentVectors is DocumentChunks with the chunks' vectors.
func (s *Store) DocumentVectors(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return s.documentChunks(ctx, namespace, documentID, contentHash, from, limit, true)
}

func (s *Store) documentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int, vectors bool) ([]ragd.Chunk, error) {
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		eq(propDocumentID, documentID), eq(propContentHash, contentHash),
		filters.Where().WithPath([]string{propChunkIndex}).WithOperator(filters.GreaterThanEqual).WithValueInt(int64(from)),
	})
	results, err := s.objects(ctx, objectQuery{class: s.class, namespace: namespace, limit: limit,
		properties: chunkProperties, where: where, sortBy: propChunkIndex, vectors: vectors})
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate: chunks of document %s: %w", documentID, err)
	}
	chunks := make([]ragd.Chunk, len(results))
	for i, r := range results {
		chunks[i] = chunkFrom(r.ID, namespace, r.Properties)
		chunks[i].Vector = r.Vector
	}
	// The store sorts already; this keeps the order a guarantee of ours.
	sort.SliceStable(chunks, func(i, j int) bool { return chunks[i].Index < chunks[j].Index })
	return chunks, nil
}

// Chunk returns one chunk of the namespace by id, or nil when the
// namespace holds no such chunk (an id that is not a UUID included).
func (s *Store) Chunk(ctx context.Context, namespace, id string) (*ragd.Chunk, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, nil
	}
	objs, err := s.client.Data().ObjectsGetter().WithClassName(s.class).WithTenant(namespace).WithID(id).Do(ctx)
	if err != nil {
		var ce *fault.WeaviateClientError
		if isMissingTenant(err) || errors.As(err, &ce) && ce.StatusCode == 404 {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate: chunk %s: %w", id, err)
	}
	if len(objs) == 0 || objs[0] == nil {
		return nil, nil
	}
	p, _ := objs[0].Properties.(map[string]any)
	c := chunkFrom(objs[0].ID.String(), namespace, p)
	return &c, nil
}
