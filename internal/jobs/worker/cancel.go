package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"

	"ragd/internal/jobs"
)

// cancellable runs a job with its cancellation checks. A job cancelled
// before it starts does nothing; one whose run fails once it has been
// cancelled (its context cancelled by Asynq's CancelProcessing, or its
// check before committing refused) has cleanup remove what it wrote. Either
// way the job acknowledges the cancel and its task is revoked: Asynq drops
// it, and the job reads as cancelled from its control record.
func (p *Pipeline) cancellable(ctx context.Context, ref jobs.Ref, run func() error, cleanup func(context.Context)) error {
	cancelled, err := p.Queue.Cancelled(ctx, ref)
	if err != nil {
		return err
	}
	if cancelled {
		retried, _ := asynq.GetRetryCount(ctx)
		if retried == 0 {
			cleanup = nil // it never ran: nothing to remove
		}
		return p.stopCancelled(ctx, ref, cleanup)
	}
	err = run()
	if err == nil {
		return nil
	}
	if cancelled, cerr := p.Queue.Cancelled(context.WithoutCancel(ctx), ref); cerr != nil || !cancelled {
		return err
	}
	return p.stopCancelled(ctx, ref, cleanup)
}

// stopCancelled cleans up after a cancelled run, acknowledges the cancel
// and returns the error that revokes the task.
func (p *Pipeline) stopCancelled(ctx context.Context, ref jobs.Ref, cleanup func(context.Context)) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discardTimeout)
	defer cancel()
	if cleanup != nil {
		cleanup(ctx)
	}
	if err := p.Queue.Stopped(ctx, ref.ID); err != nil {
		p.Log.WarnContext(ctx, "cancelled job stopped, but the acknowledgement failed; its cancel waits for it in vain",
			"job_id", ref.ID, "error", err)
	}
	p.Log.InfoContext(ctx, "job cancelled", "job_id", ref.ID, "type", ref.Type, "kb_name", ref.Namespace)
	return fmt.Errorf("%w: %w", jobs.ErrCancelled, asynq.RevokeTask)
}

// discardCancelled removes what a cancelled document job wrote: the
// chunks and images of a version the registry never made current.
func (p *Pipeline) discardCancelled(ctx context.Context, pl jobs.DocumentPayload) {
	if pl.DocumentID == "" {
		return
	}
	n, err := p.DiscardUncommitted(ctx, pl.Namespace, pl.DocumentID)
	switch {
	case err != nil:
		p.Log.WarnContext(ctx, "chunks of a cancelled version not removed; searches hide them", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "error", err)
	case n > 0:
		p.Log.InfoContext(ctx, "removed the chunks of a cancelled version", "kb_name", pl.Namespace,
			"document_id", pl.DocumentID, "chunks", n)
	}
}

// wasCancelled reports whether a handler's error is a cancel: its own
// (ErrCancelled), or the context Asynq cancelled to stop it.
func wasCancelled(err error) bool {
	return errors.Is(err, jobs.ErrCancelled) || errors.Is(err, context.Canceled)
}

// logFailure logs a failed run; a cancelled one is not a failure.
func logFailure(ctx context.Context, log *slog.Logger, t *asynq.Task, err error) {
	ctx = tracedContext(ctx, t)
	retried, _ := asynq.GetRetryCount(ctx)
	id, _ := asynq.GetTaskID(ctx)
	if wasCancelled(err) {
		log.InfoContext(ctx, "job stopped", "job_id", id, "type", t.Type(), "reason", err)
		return
	}
	log.WarnContext(ctx, "job failed", "job_id", id, "type", t.Type(), "attempt", retried+1, "final", final(ctx, err), "error", err)
}
