package worker

import (
	"context"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/jobs"
)

// indexImages writes the pictures the parse found in a PDF or DOCX,
// embedded by caption and nearby text, for core_retrieve_visual. Images are written with
// the version's content hash, before the version becomes current, so they
// switch over with its chunks. An unreadable image container only loses the
// images: the text is the document.
func (p *Pipeline) indexImages(ctx context.Context, pl jobs.DocumentPayload, loaded *document.Loaded, hash string, access []string) (int, error) {
	if loaded.ImagesErr != nil {
		p.Log.WarnContext(ctx, "images not extracted", "document_id", pl.DocumentID, "source", pl.Source, "error", loaded.ImagesErr)
		return 0, nil
	}
	extracted := loaded.Images
	var images []ragd.Image
	for _, im := range extracted {
		if im.Caption == "" && im.Nearby == "" {
			continue // nothing to find it by
		}
		images = append(images, ragd.Image{ID: ragd.ImageID(pl.DocumentID, hash, im.Index), Namespace: pl.Namespace,
			DocumentID: pl.DocumentID, ContentHash: hash, Source: pl.Source, Index: im.Index, Page: im.Page, Position: im.Position,
			Caption: im.Caption, Nearby: im.Nearby, Format: im.Format, Width: im.Width, Height: im.Height, Access: access})
	}
	if len(images) == 0 {
		return 0, nil
	}
	if err := ragd.EmbedImages(ctx, p.Embedder, images); err != nil {
		return 0, err
	}
	// Finished even if the job is cancelled meanwhile, as chunk upserts are (write).
	return len(images), p.Store.UpsertImages(context.WithoutCancel(ctx), pl.Namespace, images)
}
