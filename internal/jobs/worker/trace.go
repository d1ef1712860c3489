package worker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/platform/telemetry"
)

// tracing gives each run of a job a span, a child of the span that
// enqueued it (its payload's trace context), after a span of its wait in
// the queue; a retry is a run, and a span, of its own. Installed only
// with telemetry on.
func tracing(tel *telemetry.Provider) asynq.MiddlewareFunc {
	return func(next asynq.Handler) asynq.Handler {
		return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
			var pl struct {
				Namespace  string `json:"kb_name"`
				DocumentID string `json:"document_id"`
				ParentID   string `json:"parent_id"`
				jobs.Traced
			}
			_ = json.Unmarshal(t.Payload(), &pl)
			id, _ := asynq.GetTaskID(ctx)
			retried, _ := asynq.GetRetryCount(ctx)
			ctx, span := tel.StartJob(ctx, telemetry.Job{ID: id, Type: t.Type(), Namespace: pl.Namespace,
				DocumentID: pl.DocumentID, ParentID: pl.ParentID, Attempt: retried + 1, Trace: pl.Trace})
			err := next.ProcessTask(ctx, t)
			outcome := runOutcome(ctx, err)
			span.Set(telemetry.String(telemetry.KeyStatus, outcome))
			if outcome == "cancelled" {
				span.End(nil) // stopped as asked: not a failure
			} else {
				span.End(err)
			}
			return err
		})
	}
}

// tracedContext is ctx in the trace t's payload carries, so that what
// is logged of t outside its run (its failure, as Asynq reports it) has
// the trace's id.
func tracedContext(ctx context.Context, t *asynq.Task) context.Context {
	var pl jobs.Traced
	if json.Unmarshal(t.Payload(), &pl) != nil {
		return ctx
	}
	return telemetry.Remote(ctx, pl.Trace)
}

// runOutcome is how a run ended: completed, cancelled, retry (it runs
// again) or failed.
func runOutcome(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return "completed"
	case wasCancelled(err):
		return "cancelled"
	case final(ctx, err):
		return "failed"
	}
	return "retry"
}

// ocrPages turns OCR's progress into a span per page read, each from the
// end of the one before (or the start of OCR) to its own.
type ocrPages struct {
	ctx  context.Context
	last time.Time
	done int
}

func (o *ocrPages) heard(done, total int) {
	now := time.Now()
	for ; o.done < done; o.done++ {
		_, s := telemetry.StartAt(o.ctx, "ingest.ocr_page", o.last)
		if s.Recording() {
			s.Set(telemetry.Int(telemetry.KeyPage, o.done+1), telemetry.Int(telemetry.KeyPages, total))
		}
		s.EndAt(now)
		o.last = now
	}
	if done == 0 {
		o.last = now
	}
}

// noteResult puts what a document's run did on its job's span.
func noteResult(ctx context.Context, res ragd.DocumentResult) {
	if s := telemetry.Current(ctx); s.Recording() {
		s.Set(telemetry.Int(telemetry.KeyChunks, res.ChunksIndexed), telemetry.Bool("ragd.dedup_hit", res.DedupHit),
			telemetry.Int("ragd.images", res.ImagesIndexed))
	}
}
