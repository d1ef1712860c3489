package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"ragd/internal/jobs"
	"ragd/wire"
)

// Importer runs import jobs (importjob.Runner).
type Importer interface {
	RunImport(ctx context.Context, pl jobs.ImportPayload, rep *jobs.Reporter) (wire.ImportResult, error)
	DiscardImport(ctx context.Context, pl jobs.ImportPayload) (int, error)
}

// importDiscardTimeout bounds the cleanup after an import's last failure:
// one registry read and at most one delete per archived document.
const importDiscardTimeout = 5 * time.Minute

// handleImport runs an import job; after its last attempt fails, or when
// it is cancelled, what it wrote of documents it did not make current is
// discarded (documents it made current stay: each is whole).
func (p *Pipeline) handleImport(imp Importer, log *slog.Logger) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var pl jobs.ImportPayload
		if err := json.Unmarshal(t.Payload(), &pl); err != nil {
			return fmt.Errorf("bad payload: %v: %w", err, asynq.SkipRetry)
		}
		rep := jobs.NewReporter(t)
		discard := func(ctx context.Context) { discardImport(ctx, imp, pl, log) }
		var res wire.ImportResult
		err := p.cancellable(ctx, jobs.RefOf(ctx, t), func() (err error) {
			res, err = imp.RunImport(ctx, pl, rep)
			return err
		}, discard)
		switch {
		case errors.Is(err, jobs.ErrCancelled):
			return err
		case err == nil:
			rep.Result(res)
			return nil
		}
		err = classify(err)
		if final(ctx, err) {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importDiscardTimeout)
			defer cancel()
			discard(dctx)
		}
		return err
	}
}

// discardImport removes the chunks of the import's unfinished documents.
func discardImport(ctx context.Context, imp Importer, pl jobs.ImportPayload, log *slog.Logger) {
	n, err := imp.DiscardImport(ctx, pl)
	if err != nil {
		log.WarnContext(ctx, "chunks of a failed import not all removed; searches hide them", "kb_name", pl.Namespace, "error", err)
		return
	}
	log.InfoContext(ctx, "removed the chunks of an unfinished import's documents", "kb_name", pl.Namespace, "chunks", n)
}
