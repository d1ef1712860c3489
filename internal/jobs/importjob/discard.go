package importjob

import (
	"context"
	"errors"
	"io"
	"os"

	"ragd/internal/catalog/archive"
	"ragd/internal/jobs"
)

// DiscardImport runs after an import's last attempt failed: it deletes the
// chunks and images the import wrote of every archived document it did not
// make current, so none stay in the store (searches hide them already),
// and removes the stored archive. A document the import made current
// stays: it is whole. It reports how many chunks went.
func (a *Runner) DiscardImport(ctx context.Context, pl jobs.ImportPayload) (int, error) {
	defer func() {
		if err := os.Remove(pl.ArchivePath); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.Log.WarnContext(ctx, "archive of a failed import not removed", "path", pl.ArchivePath, "error", err)
		}
	}()
	f, err := os.Open(pl.ArchivePath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	ar, err := archive.NewReader(f)
	if err != nil {
		return 0, err
	}
	im := &importer{a: a, ns: pl.Namespace, from: ar.Header().KBName}
	removed := 0
	for {
		rec, err := ar.Next()
		if errors.Is(err, io.EOF) {
			return removed, nil
		}
		if err != nil {
			return removed, err
		}
		if rec.Type != archive.TypeDocument {
			continue
		}
		d := rec.Document.Document
		n, err := a.Versions.Discard(ctx, pl.Namespace, im.docID(d.ID, d.Source), d.ContentHash)
		removed += n
		if err != nil {
			return removed, err
		}
	}
}
