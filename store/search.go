package store

import (
	"context"
	"fmt"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"ragd"
)

// Mode selects how a query is scored.
type Mode string

// The search modes.
const (
	ModeHybrid  Mode = "hybrid"  // BM25 and vector scores fused, weighted by Alpha
	ModeVector  Mode = "vector"  // nearest vectors only
	ModeKeyword Mode = "keyword" // BM25 only
)

// Query is one search in one namespace.
type Query struct {
	Text   string
	Vector []float32
	Mode   Mode
	// Alpha weights the vector side of a hybrid query: 0 is pure BM25, 1 pure vector.
	Alpha float64
	Limit int
	// Optional filters; empty means no restriction.
	DocumentIDs []string
	Tags        []string
	SourceTypes []string
	// WithVectors returns each hit's vector (for diversity re-ranking).
	WithVectors bool
	// RankedFusion fuses a hybrid query's BM25 and vector results by rank
	// instead of by min-max normalised score.
	RankedFusion bool
	// PathBoost weighs matches in the heading trail against matches in the
	// body (BM25 property boost); 0 means 1.
	PathBoost float64
	// Related searches, by BM25 only, the words a thesaurus related to each
	// chunk (ragd.Chunk.Related) instead of its body and heading trail.
	Related bool
}

// fusion is the hybrid query's fusion type.
func (q Query) fusion() graphql.FusionType {
	if q.RankedFusion {
		return graphql.Ranked
	}
	return graphql.RelativeScore
}

// properties are the BM25-searched properties, the heading trail boosted
// by PathBoost ("path^2"); or the related words alone.
func (q Query) properties() []string {
	if q.Related {
		return []string{propRelated}
	}
	if q.PathBoost <= 0 || q.PathBoost == 1 {
		return []string{propText, propPath}
	}
	return []string{propText, fmt.Sprintf("%s^%g", propPath, q.PathBoost)}
}

// Hit is a chunk found by a query with its score (higher is better).
type Hit struct {
	ragd.Chunk
	Score float64
}

// Search runs q in the namespace's tenant. A namespace that holds nothing yet
// answers with no hits, not an error.
func (s *Store) Search(ctx context.Context, namespace string, q Query) ([]Hit, error) {
	if q.Related {
		q.Mode = ModeKeyword // related words have no vectors of their own
	}
	req := s.client.Experimental().Search().WithCollection(s.class).WithTenant(namespace).
		WithLimit(q.Limit).WithProperties(chunkProperties...).
		WithMetadata(&graphql.Metadata{ID: true, Score: q.Mode != ModeVector, Distance: q.Mode == ModeVector, Vector: q.WithVectors})
	switch q.Mode {
	case ModeKeyword:
		req = req.WithBM25((&graphql.BM25ArgumentBuilder{}).WithQuery(q.Text).WithProperties(q.properties()...))
	case ModeVector:
		req = req.WithNearVector((&graphql.NearVectorArgumentBuilder{}).WithVector(q.Vector))
	default:
		req = req.WithHybrid((&graphql.HybridArgumentBuilder{}).WithQuery(q.Text).WithVector(q.Vector).
			WithAlpha(float32(q.Alpha)).WithProperties(q.properties()).WithFusionType(q.fusion()))
	}
	if where := q.where(); where != nil {
		req = req.WithWhere(where)
	}
	results, err := req.Do(ctx)
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate search: %w", err)
	}
	hits := make([]Hit, 0, len(results))
	for _, r := range results {
		h := Hit{Chunk: chunkFrom(r.ID, namespace, r.Properties)}
		h.Vector = r.Vector
		if q.Mode == ModeVector {
			h.Score = 1 - float64(r.Metadata.Distance)
		} else {
			h.Score = float64(r.Metadata.Score)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func (q Query) where() *filters.WhereBuilder {
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
	if ts, err := time.Parse(time.RFC3339Nano, str(p[propTimestamp])); err == nil {
		c.Timestamp = ts
	}
	if l, ok := p[propTags].(*pb.ListValue); ok {
		c.Tags = l.GetTextValues().GetValues()
	}
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
