package search

import (
	"context"
	"sort"

	"ragd"

	"golang.org/x/sync/errgroup"
)

// ImageResult is one image found by RetrieveImages.
type ImageResult struct {
	ImageID    string  `json:"image_id"`
	DocumentID string  `json:"document_id"`
	Source     string  `json:"source"`
	Page       int     `json:"page"`
	Position   int     `json:"position"`
	Caption    string  `json:"caption"`
	Format     string  `json:"format"`
	Width      int     `json:"width,omitempty"`
	Height     int     `json:"height,omitempty"`
	Score      float64 `json:"score"`
	KBName     string  `json:"kb_name"`
}

// RetrieveImages finds images extracted from PDF and DOCX files at ingest,
// by their captions and the text around them. Only images of documents'
// current versions are returned.
func (s *Service) RetrieveImages(ctx context.Context, req RetrieveRequest) ([]ImageResult, error) {
	req.Mode = ""
	p, err := s.Plan(ctx, req)
	if err != nil || p.NoDocuments {
		return nil, err
	}
	vector, err := s.EmbedQuery(ctx, p.Query)
	if err != nil {
		return nil, err
	}
	q := ragd.ChunkQuery{Text: p.Query, Vector: vector, Alpha: p.Alpha, Limit: p.TopK, DocumentIDs: p.DocumentIDs}
	lists := make([][]ImageResult, len(p.Namespaces))
	g, gctx := errgroup.WithContext(ctx)
	for i, ns := range p.Namespaces {
		g.Go(func() error {
			hits, err := s.Store.SearchImages(gctx, ns, q)
			if err != nil {
				return err
			}
			ids := make([]string, len(hits))
			for k, h := range hits {
				ids[k] = h.DocumentID
			}
			current, err := s.currentVersions(gctx, ns, ids)
			if err != nil {
				return err
			}
			for _, h := range hits {
				if current[h.DocumentID] == h.ContentHash {
					lists[i] = append(lists[i], ImageResult{ImageID: h.ID, DocumentID: h.DocumentID, Source: h.Source, Page: h.Page,
						Position: h.Position, Caption: h.Caption, Format: h.Format, Width: h.Width, Height: h.Height, Score: h.Score, KBName: ns})
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []ImageResult
	for _, l := range lists {
		out = append(out, l...)
	}
	if len(lists) > 1 {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	}
	return out[:min(len(out), p.TopK)], nil
}
