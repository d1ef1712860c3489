package store

import (
	"context"
	"fmt"

	"ragd"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"
)

const (
	propImageIndex = "image_index"
	propPosition   = "position"
	propCaption    = "caption"
	propNearby     = "nearby"
	propFormat     = "format"
	propWidth      = "width"
	propHeight     = "height"
)

func (s *Store) imageClass() string { return s.class + "Image" }

// ensureImageCollection creates the image collection if absent. It records
// the same embedder as the chunk collection, whose check covers both.
func (s *Store) ensureImageCollection(ctx context.Context, embedder string, dim int) error {
	created, err := s.createIfAbsent(ctx, s.replicated(newClass(s.imageClass(), embedder, dim,
		textProp(propCaption, models.PropertyTokenizationWord, true),
		textProp(propNearby, models.PropertyTokenizationWord, true),
		textProp(propDocumentID, models.PropertyTokenizationField, false),
		textProp(propContentHash, models.PropertyTokenizationField, false),
		textProp(propSource, models.PropertyTokenizationField, false),
		textProp(propFormat, models.PropertyTokenizationField, false),
		intProp(propImageIndex), intProp(propPage), intProp(propPosition), intProp(propWidth), intProp(propHeight),
		accessProperty(),
	)))
	if err != nil || created {
		return err
	}
	class, err := s.client.Schema().ClassGetter().WithClassName(s.imageClass()).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: read collection %s: %w", s.imageClass(), err)
	}
	if err := s.checkReplication(class); err != nil {
		return err
	}
	return s.addProperty(ctx, class, accessProperty())
}

// UpsertImages writes a document's images into the namespace's tenant.
func (s *Store) UpsertImages(ctx context.Context, namespace string, images []ragd.Image) error {
	if len(images) == 0 {
		return nil
	}
	objects := make([]*models.Object, len(images))
	for i, im := range images {
		objects[i] = &models.Object{Class: s.imageClass(), ID: strfmt.UUID(im.ID), Tenant: namespace, Vector: im.Vector,
			Properties: map[string]any{propCaption: im.Caption, propNearby: im.Nearby, propDocumentID: im.DocumentID,
				propContentHash: im.ContentHash, propSource: im.Source, propFormat: im.Format, propImageIndex: im.Index,
				propPage: im.Page, propPosition: im.Position, propWidth: im.Width, propHeight: im.Height,
				propAccess: ragd.StoredAccess(im.Access)}}
	}
	resp, err := s.batchObjects(ctx, objects)
	if err != nil {
		return refusedWrite("weaviate batch write (images)", err)
	}
	for _, r := range resp {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			return fmt.Errorf("weaviate batch write (images): %s", r.Result.Errors.Error[0].Message)
		}
	}
	return nil
}

// SearchImages finds images by caption and nearby text (hybrid, the caption
// weighted double), within q's document filter, among those ctx's
// audience may see (ragd.AudienceIn).
func (s *Store) SearchImages(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	results, err := s.objects(ctx, objectQuery{class: s.imageClass(), namespace: namespace, limit: q.Limit, consistent: true,
		properties: []string{propCaption, propNearby, propDocumentID, propContentHash, propSource, propFormat,
			propImageIndex, propPage, propPosition, propWidth, propHeight, propAccess},
		where:     where(ragd.ChunkQuery{DocumentIDs: q.DocumentIDs}, ragd.AudienceIn(ctx).StoreFilter()),
		withScore: true,
		hybrid:    hybridSearch(q.Text, []string{propCaption + "^2", propNearby}, q.Alpha, q.Vector, false)})
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate image search: %w", err)
	}
	hits := make([]ragd.ImageHit, 0, len(results))
	for _, r := range results {
		p := r.Properties
		hits = append(hits, ragd.ImageHit{Score: float64(r.Score), Image: ragd.Image{ID: r.ID, Namespace: namespace,
			DocumentID: str(p[propDocumentID]), ContentHash: str(p[propContentHash]), Source: str(p[propSource]),
			Caption: str(p[propCaption]), Nearby: str(p[propNearby]), Format: str(p[propFormat]), Index: num(p[propImageIndex]),
			Page: num(p[propPage]), Position: num(p[propPosition]), Width: num(p[propWidth]), Height: num(p[propHeight]),
			Access: ragd.LoadedAccess(texts(p[propAccess]))}})
	}
	return hits, nil
}
