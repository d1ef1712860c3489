package worker

import (
	"context"
	"log/slog"
	"time"

	"ragd/internal/jobs"
)

// discardTimeout bounds the cleanup after a job's last failure, which may
// run on a context that ended (the job's deadline).
const discardTimeout = 30 * time.Second

// DiscardUncommitted deletes the chunks and images of a document that belong
// to no current version (versions.Keeper.Discard), and returns how many went.
func (p *Pipeline) DiscardUncommitted(ctx context.Context, ns, docID string) (int, error) {
	return p.Versions.Discard(ctx, ns, docID, "")
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
		log.WarnContext(ctx, "chunks of the failed version not removed; searches hide them", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "error", err)
	case n > 0:
		log.InfoContext(ctx, "removed chunks of a version that failed to index", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "chunks", n)
	}
}
