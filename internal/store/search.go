package store

import (
	"context"
	"fmt"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"

	"ragd"
)

// properties are the BM25-searched properties, the heading trail boosted
// by PathBoost ("path^2"); or the related words alone.
func properties(q ragd.ChunkQuery) []string {
	if q.Related {
		return []string{propRelated}
	}
	if q.PathBoost <= 0 || q.PathBoost == 1 {
		return []string{propText, propPath}
	}
	return []string{propText, fmt.Sprintf("%s^%g", propPath, q.PathBoost)}
}

// Search runs q in the namespace's tenant, over the chunks ctx's audience
// may see (ragd.AudienceIn). A namespace that holds nothing yet answers
// with no hits, not an error.
func (s *Store) Search(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	if q.Related {
		q.Mode = ragd.ModeKeyword // related words have no vectors of their own
	}
	hits, err := s.wire.search(ctx, s.searchRequest(namespace, q, ragd.AudienceIn(ctx).StoreFilter()), namespace, q.Mode == ragd.ModeVector)
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate search: %w", err)
	}
	return hits, nil
}

// where is q's filter, with access (ragd.Audience.StoreFilter of the
// context's audience): only chunks whose stored access holds one of its
// values; nil is no restriction.
func where(q ragd.ChunkQuery, access []string) *filters.WhereBuilder {
	var operands []*filters.WhereBuilder
	anyOf := func(prop string, values []string) {
		if len(values) > 0 {
			operands = append(operands, filters.Where().WithPath([]string{prop}).
				WithOperator(filters.ContainsAny).WithValueText(values...))
		}
	}
	anyOf(propDocumentID, q.DocumentIDs)
	anyOf(propTags, q.Tags)
	anyOf(propSourceType, q.SourceTypes)
	if access != nil { // empty: open documents only
		anyOf(propAccess, ragd.StoredAccess(access))
	}
	switch len(operands) {
	case 0:
		return nil
	case 1:
		return operands[0]
	default:
		return filters.Where().WithOperator(filters.And).WithOperands(operands)
	}
}

func chunkFrom(id, namespace string, p map[string]any) ragd.Chunk {
	c := ragd.Chunk{
		ID:          id,
		Namespace:   namespace,
		Text:        str(p[propText]),
		DocumentID:  str(p[propDocumentID]),
		Source:      str(p[propSource]),
		SourceType:  ragd.SourceType(str(p[propSourceType])),
		ContentHash: str(p[propContentHash]),
		Index:       num(p[propChunkIndex]),
		Path:        str(p[propPath]),
		Level:       num(p[propLevel]),
		Summary:     str(p[propSummary]),
		Page:        num(p[propPage]),
	}
	c.OCR, _ = p[propOCR].(bool)
	if ts, err := time.Parse(time.RFC3339Nano, str(p[propTimestamp])); err == nil {
		c.Timestamp = ts
	}
	c.Tags, c.Access = texts(p[propTags]), ragd.LoadedAccess(texts(p[propAccess]))
	return c
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}
