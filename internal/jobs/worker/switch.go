package worker

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hibiken/asynq"

	"ragd/internal/jobs"
	"ragd/internal/store/live"
)

// Switcher runs embedder switches (switchjob.Runner).
type Switcher interface {
	RunSwitch(ctx context.Context, ref jobs.Ref, rep *jobs.Reporter) error
	CancelSwitch(ctx context.Context, id string) error
}

// handleSwitch runs a switch job; a cancelled one drops the collection it
// was building, and the old one stays live.
func (p *Pipeline) handleSwitch(sw Switcher, log *slog.Logger) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		ref := jobs.RefOf(ctx, t)
		rep := jobs.NewReporter(t)
		err := p.cancellable(ctx, ref, func() error { return sw.RunSwitch(ctx, ref, rep) }, func(ctx context.Context) {
			if err := sw.CancelSwitch(ctx, ref.ID); err != nil {
				log.ErrorContext(ctx, "cancelled embedder switch not undone; cancel it again", "job_id", ref.ID, "error", err)
			}
		})
		if errors.Is(err, live.ErrSwitchGone) {
			return nil
		}
		return err
	}
}

// pinning fixes every job but a switch to the snapshot live when it
// starts. A switch is left out: it waits for every pin older than the
// state it sets to end, its own included.
func pinning(pin func(context.Context) (context.Context, func())) asynq.MiddlewareFunc {
	return func(next asynq.Handler) asynq.Handler {
		return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
			if t.Type() == jobs.TypeEmbedderSwitch {
				return next.ProcessTask(ctx, t)
			}
			ctx, release := pin(ctx)
			defer release()
			return next.ProcessTask(ctx, t)
		})
	}
}
