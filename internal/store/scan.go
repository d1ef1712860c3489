package store

import (
	"context"
	"fmt"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"ragd"
)

// ScanChunks returns up to limit of the namespace's chunks that follow the
// chunk id after ("" for the first page), in id order, with their vectors
// and related words: Weaviate's cursor, which reads one page at a time
// however large the namespace. An empty namespace has no chunks.
func (s *Store) ScanChunks(ctx context.Context, namespace, after string, limit int) ([]ragd.Chunk, error) {
	objs, err := s.scan(ctx, s.class, namespace, after, limit)
	if err != nil {
		return nil, err
	}
	chunks := make([]ragd.Chunk, 0, len(objs))
	for _, o := range objs {
		p, _ := o.Properties.(map[string]any)
		c := chunkFrom(o.ID.String(), namespace, p)
		c.Related = str(p[propRelated])
		c.Vector = o.Vector
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// ScanImages is ScanChunks for the namespace's images.
func (s *Store) ScanImages(ctx context.Context, namespace, after string, limit int) ([]ragd.Image, error) {
	objs, err := s.scan(ctx, s.imageClass(), namespace, after, limit)
	if err != nil {
		return nil, err
	}
	images := make([]ragd.Image, 0, len(objs))
	for _, o := range objs {
		p, _ := o.Properties.(map[string]any)
		images = append(images, ragd.Image{ID: o.ID.String(), Namespace: namespace, DocumentID: str(p[propDocumentID]),
			ContentHash: str(p[propContentHash]), Source: str(p[propSource]), Index: num(p[propImageIndex]),
			Page: num(p[propPage]), Position: num(p[propPosition]), Caption: str(p[propCaption]), Nearby: str(p[propNearby]),
			Format: str(p[propFormat]), Width: num(p[propWidth]), Height: num(p[propHeight]), Vector: o.Vector,
			Access: ragd.LoadedAccess(texts(p[propAccess]))})
	}
	return images, nil
}

// scan reads one cursor page of class in the namespace's tenant over REST
// (the objects listing; the cursor takes no filter and no consistency
// level: Weaviate reads one replica).
func (s *Store) scan(ctx context.Context, class, namespace, after string, limit int) ([]*models.Object, error) {
	g := s.client.Data().ObjectsGetter().WithClassName(class).WithTenant(namespace).WithLimit(limit).WithVector()
	if after != "" {
		g = g.WithAfter(after)
	}
	objs, err := g.Do(ctx)
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate: list objects of %s: %w", class, err)
	}
	return objs, nil
}

// CountVersion counts the chunks of one version of a document.
func (s *Store) CountVersion(ctx context.Context, namespace, documentID, contentHash string) (int, error) {
	return s.countWhere(ctx, namespace, filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		eq(propDocumentID, documentID), eq(propContentHash, contentHash)}))
}

// texts reads a text[] property as a gRPC search (a ListValue) or the
// REST listing ([]any) returns it.
func texts(v any) []string {
	if l, ok := v.(*pb.ListValue); ok {
		return l.GetTextValues().GetValues()
	}
	list, _ := v.([]any)
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
