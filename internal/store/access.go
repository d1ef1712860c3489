package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"golang.org/x/sync/errgroup"

	"ragd"
)

// accessPage is how many objects SetAccess finds at a time, and
// accessWriters how many it updates at once.
const (
	accessPage    = 500
	accessWriters = 8
)

// SetAccess rewrites the access of one version of a document: its chunks,
// then its images, each updated in place (a merge keeps the vector and
// every other property), found by version and index order so a page is
// never skipped. An object deleted meanwhile is skipped.
func (s *Store) SetAccess(ctx context.Context, namespace, documentID, contentHash string, access []string) (int, error) {
	stored := ragd.StoredAccess(access)
	n, err := s.setAccessIn(ctx, s.class, propChunkIndex, namespace, documentID, contentHash, stored)
	if err != nil {
		return n, err
	}
	_, err = s.setAccessIn(ctx, s.imageClass(), propImageIndex, namespace, documentID, contentHash, stored)
	return n, err
}

func (s *Store) setAccessIn(ctx context.Context, class, indexProp, namespace, documentID, contentHash string, stored []string) (int, error) {
	total, from := 0, 0
	for {
		where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			eq(propDocumentID, documentID), eq(propContentHash, contentHash),
			filters.Where().WithPath([]string{indexProp}).WithOperator(filters.GreaterThanEqual).WithValueInt(int64(from)),
		})
		results, err := s.objects(ctx, objectQuery{class: class, namespace: namespace, limit: accessPage,
			properties: []string{indexProp}, where: where, sortBy: indexProp, consistent: true})
		if err != nil {
			if isMissingTenant(err) {
				return total, nil
			}
			return total, fmt.Errorf("weaviate: objects of document %s: %w", documentID, err)
		}
		ids := make([]string, len(results))
		for i, r := range results {
			ids[i] = r.ID
			from = max(from, num(r.Properties[indexProp])+1)
		}
		if err := s.mergeAccess(ctx, class, namespace, ids, stored); err != nil {
			return total, err
		}
		total += len(results)
		if len(results) < accessPage {
			return total, nil
		}
	}
}

// mergeAccess sets the access of the objects ids of class in the
// namespace's tenant, accessWriters at once.
func (s *Store) mergeAccess(ctx context.Context, class, namespace string, ids []string, stored []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(accessWriters)
	for _, id := range ids {
		g.Go(func() error { return s.mergeOne(gctx, class, namespace, id, stored) })
	}
	return g.Wait()
}

func (s *Store) mergeOne(ctx context.Context, class, namespace, id string, stored []string) error {
	err := s.client.Data().Updater().WithMerge().WithClassName(class).WithTenant(namespace).WithID(id).
		WithConsistencyLevel(s.consistency).WithProperties(map[string]any{propAccess: stored}).Do(ctx)
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.StatusCode == 404 {
		return nil // deleted since it was found
	}
	if err != nil {
		return fmt.Errorf("weaviate: set access of %s: %w", id, err)
	}
	return nil
}
