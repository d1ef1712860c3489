package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"ragd/jobs"
	"ragd/library"
)

// Importer runs import jobs (library.Archiver).
type Importer interface {
	RunImport(ctx context.Context, pl jobs.ImportPayload, rep *jobs.Reporter) (library.ImportResult, error)
	DiscardImport(ctx context.Context, pl jobs.ImportPayload) (int, error)
}

// importDiscardTimeout bounds the cleanup after an import's last failure:
// one registry read and at most one delete per archived document.
const importDiscardTimeout = 5 * time.Minute

// handleImport runs an import job; after its last attempt fails, what it
// wrote of documents it did not make current is discarded.
func handleImport(imp Importer, log *slog.Logger) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var pl jobs.ImportPayload
		if err := json.Unmarshal(t.Payload(), &pl); err != nil {
			return fmt.Errorf("bad payload: %v: %w", err, asynq.SkipRetry)
		}
		rep := jobs.NewReporter(t)
		res, err := imp.RunImport(ctx, pl, rep)
		if err == nil {
			rep.Result(res)
			return nil
		}
		err = classify(err)
		if final(ctx, err) {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importDiscardTimeout)
			defer cancel()
			n, derr := imp.DiscardImport(dctx, pl)
			if derr != nil {
				log.Warn("chunks of a failed import not all removed; searches hide them", "kb_name", pl.Namespace, "error", derr)
			} else {
				log.Info("removed the chunks of a failed import's unfinished documents", "kb_name", pl.Namespace, "chunks", n)
			}
		}
		return err
	}
}
