package worker

import (
	"context"
	"log/slog"
	"time"

	"ragd"
	"ragd/jobs"
)

// discardTimeout bounds the cleanup after a job's last failure, which may
// run on a context that ended (the job's deadline).
const discardTimeout = 30 * time.Second

// DiscardUncommitted deletes the chunks and images of a document that belong
// to no current version: what a run wrote before it failed for good. Searches
// already hide them, but they would stay in Weaviate forever and crowd
// the current versions out of each search's first page. Unlike DeleteStale
// after a success, it also clears a document that has no current version.
func (p *Pipeline) DiscardUncommitted(ctx context.Context, ns, docID string) (int, error) {
	lease, err := p.Registry.Lock(ctx, ns, docID, lockWait)
	if err != nil {
		return 0, err
	}
	defer lease.Release()
	doc, err := p.Registry.Get(ctx, ns, docID)
	switch {
	case ragd.KindOf(err) == ragd.KindNotFound:
		if err := lease.Held(ctx); err != nil {
			return 0, err
		}
		return p.Store.DeleteDocument(ctx, ns, docID)
	case err != nil:
		return 0, err
	}
	return p.deleteStale(ctx, lease, ns, docID, doc.ContentHash)
}

// discardAfterFailure runs DiscardUncommitted for a job that will not be
// retried, logging what it removed or why it could not.
func (p *Pipeline) discardAfterFailure(ctx context.Context, pl jobs.DocumentPayload, log *slog.Logger) {
	if pl.DocumentID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discardTimeout)
	defer cancel()
	n, err := p.DiscardUncommitted(ctx, pl.Namespace, pl.DocumentID)
	switch {
	case err != nil:
		log.Warn("chunks of the failed version not removed; searches hide them", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "error", err)
	case n > 0:
		log.Info("removed chunks of a version that failed to index", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "chunks", n)
	}
}
