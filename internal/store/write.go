package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"

	"ragd"
)

// Upsert writes chunks into the namespace's tenant in batches over gRPC.
// Chunk ids are deterministic, so writing the same chunk twice overwrites it.
func (s *Store) Upsert(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	for start := 0; start < len(chunks); start += s.batchSize {
		end := min(start+s.batchSize, len(chunks))
		if err := s.upsertBatch(ctx, namespace, chunks[start:end]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) upsertBatch(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	objects := make([]*models.Object, len(chunks))
	for i := range chunks {
		objects[i] = s.object(namespace, &chunks[i])
	}
	resp, err := s.batchObjects(ctx, objects)
	if err != nil {
		return refusedWrite("weaviate batch write", err)
	}
	var failures []string
	for _, r := range resp {
		if r.Result != nil && r.Result.Errors != nil {
			for _, e := range r.Result.Errors.Error {
				failures = append(failures, fmt.Sprintf("%s: %s", r.ID, e.Message))
			}
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("weaviate batch write: %d of %d objects failed: %s", len(failures), len(objects), strings.Join(failures[:min(3, len(failures))], "; "))
	}
	return nil
}

func (s *Store) object(namespace string, c *ragd.Chunk) *models.Object {
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	return &models.Object{
		Class:  s.class,
		ID:     strfmt.UUID(c.ID),
		Tenant: namespace,
		Vector: c.Vector,
		Properties: map[string]any{
			propText:        c.Text,
			propDocumentID:  c.DocumentID,
			propSource:      c.Source,
			propSourceType:  string(c.SourceType),
			propContentHash: c.ContentHash,
			propChunkIndex:  c.Index,
			propPath:        c.Path,
			propLevel:       c.Level,
			propSummary:     c.Summary,
			propKBName:      namespace,
			propPage:        c.Page,
			propTimestamp:   c.Timestamp.UTC().Format(time.RFC3339Nano),
			propTags:        tags,
			propRelated:     c.Related,
			propOCR:         c.OCR,
			propAccess:      ragd.StoredAccess(c.Access),
		},
	}
}

// DeleteStale removes a document's chunks that belong to any version other than
// keepHash: the last step of a re-ingest, after the new version is written.
//
// It never deletes by "content_hash != keepHash" itself. Weaviate computes
// NotEqual as every doc id it has allocated minus those of keepHash, so an
// object whose postings are being written that moment (a replica applying
// the write late, or an overwrite) matches it; and a replicated delete by
// filter deletes the union of what each replica it asks matched, on every
// replica. The chaos test lost chunks of the version just written that way.
// So the other versions are found first, by their stored content_hash, and
// each is deleted by "content_hash = it": chunk ids derive from the
// version, so no object ever changes from one version to another.
func (s *Store) DeleteStale(ctx context.Context, namespace, documentID, keepHash string) (int, error) {
	if _, err := s.deleteStaleIn(ctx, s.imageClass(), namespace, documentID, keepHash); err != nil {
		return 0, err
	}
	return s.deleteStaleIn(ctx, s.class, namespace, documentID, keepHash)
}

// staleRounds bounds DeleteStale's find-and-delete rounds: each finds up to
// staleProbe objects of other versions, so a round usually clears them all.
const (
	staleRounds = 100
	staleProbe  = 1000
)

func (s *Store) deleteStaleIn(ctx context.Context, class, namespace, documentID, keepHash string) (int, error) {
	total := 0
	for round := 0; round < staleRounds; round++ {
		versions, err := s.otherVersions(ctx, class, namespace, documentID, keepHash)
		if err != nil || len(versions) == 0 {
			return total, err
		}
		removed := 0
		for _, hash := range versions {
			n, err := s.deleteWhere(ctx, class, namespace, filters.Where().WithOperator(filters.And).
				WithOperands([]*filters.WhereBuilder{eq(propDocumentID, documentID), eq(propContentHash, hash)}))
			total, removed = total+n, removed+n
			if err != nil {
				return total, err
			}
		}
		if removed == 0 {
			// What was found cannot be deleted by its hash (an object
			// without one): asking again would find it again.
			return total, nil
		}
	}
	return total, nil
}

// otherVersions returns the content hashes other than keepHash that the
// document's objects in class hold, as each object stores it (not as the
// filter, which may match objects of keepHash being written, says).
func (s *Store) otherVersions(ctx context.Context, class, namespace, documentID, keepHash string) ([]string, error) {
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		eq(propDocumentID, documentID),
		filters.Where().WithPath([]string{propContentHash}).WithOperator(filters.NotEqual).WithValueText(keepHash),
	})
	results, err := s.objects(ctx, objectQuery{class: class, namespace: namespace, limit: staleProbe,
		properties: []string{propContentHash}, where: where, consistent: true})
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate: versions of document %s: %w", documentID, err)
	}
	var versions []string
	for _, r := range results {
		if h, _ := r.Properties[propContentHash].(string); h != keepHash && !slices.Contains(versions, h) {
			versions = append(versions, h)
		}
	}
	return versions, nil
}

// DeleteDocument removes every chunk and image of a document.
func (s *Store) DeleteDocument(ctx context.Context, namespace, documentID string) (int, error) {
	if _, err := s.deleteWhere(ctx, s.imageClass(), namespace, eq(propDocumentID, documentID)); err != nil {
		return 0, err
	}
	return s.deleteWhere(ctx, s.class, namespace, eq(propDocumentID, documentID))
}

func eq(prop, value string) *filters.WhereBuilder {
	return filters.Where().WithPath([]string{prop}).WithOperator(filters.Equal).WithValueText(value)
}

// deleteWhere deletes in rounds: one batch delete removes at most Weaviate's
// QUERY_MAXIMUM_RESULTS objects.
func (s *Store) deleteWhere(ctx context.Context, class, namespace string, where *filters.WhereBuilder) (int, error) {
	total := 0
	for round := 0; round < 1000; round++ {
		resp, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(class).WithTenant(namespace).
			WithConsistencyLevel(s.consistency).WithWhere(where).WithOutput("minimal").Do(ctx)
		if err != nil {
			if isMissingTenant(err) {
				return total, nil
			}
			return total, fmt.Errorf("weaviate batch delete: %w", err)
		}
		if resp.Results == nil {
			return total, nil
		}
		total += int(resp.Results.Successful)
		if resp.Results.Failed > 0 {
			return total, fmt.Errorf("weaviate batch delete: %d objects could not be deleted", resp.Results.Failed)
		}
		if resp.Results.Matches <= resp.Results.Successful && resp.Results.Matches < resp.Results.Limit {
			return total, nil
		}
		if resp.Results.Successful == 0 {
			return total, nil
		}
	}
	return total, nil
}

// ClearNamespace drops the namespace's tenant, and with it every chunk and
// image, in one call per collection.
func (s *Store) ClearNamespace(ctx context.Context, namespace string) error {
	for _, class := range []string{s.imageClass(), s.class} {
		err := s.client.Schema().TenantsDeleter().WithClassName(class).WithTenants(namespace).Do(ctx)
		if err != nil && !isMissingTenant(err) {
			return fmt.Errorf("weaviate: drop tenant %s of %s: %w", namespace, class, err)
		}
	}
	return nil
}

// Count returns the number of chunks in a namespace, or of one document when
// documentID is not empty.
func (s *Store) Count(ctx context.Context, namespace, documentID string) (int, error) {
	var where *filters.WhereBuilder
	if documentID != "" {
		where = eq(propDocumentID, documentID)
	}
	return s.countWhere(ctx, namespace, where)
}

// countWhere counts the namespace's chunks that match where (nil: all).
func (s *Store) countWhere(ctx context.Context, namespace string, where *filters.WhereBuilder) (int, error) {
	agg := s.client.GraphQL().Aggregate().WithClassName(s.class).WithTenant(namespace).
		WithFields(graphqlMetaCount...)
	if where != nil {
		agg = agg.WithWhere(where)
	}
	resp, err := agg.Do(ctx)
	if err != nil {
		return 0, fmt.Errorf("weaviate aggregate: %w", err)
	}
	if len(resp.Errors) > 0 {
		if isMissingTenant(fmt.Errorf("%s", resp.Errors[0].Message)) {
			return 0, nil
		}
		return 0, fmt.Errorf("weaviate aggregate: %s", resp.Errors[0].Message)
	}
	return metaCount(resp.Data, s.class)
}
