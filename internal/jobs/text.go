package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// A document job's inline text travels outside its task: Asynq keeps a
// completed task, payload and all, for the retention, so a day of agents'
// texts would sit in Redis — a deleted document's text with them. The
// text is held under its own key (keyspace.JobKeys.Text) until the job
// ends, and its payload says so (TextHeld).

// TextHold bounds how long a held text waits for its job, beyond any
// backlog a queue is expected to have; the job's end releases it sooner.
const TextHold = 7 * 24 * time.Hour

// ErrTextGone is returned by HeldText when a job's text is no longer
// held: the job ended before (a run that completed, then ran again after
// its worker died), was cancelled, or waited longer than TextHold.
var ErrTextGone = errors.New("the job's text is no longer held")

// holdText moves p's inline text under jobID's key.
func (q *Queue) holdText(ctx context.Context, jobID string, p *DocumentPayload) error {
	if p.Text == "" || p.ParentID != "" {
		return nil
	}
	if err := q.rdb.Set(ctx, q.keys.Text(jobID), p.Text, TextHold).Err(); err != nil {
		return err
	}
	p.Text, p.TextHeld = "", true
	return nil
}

// HeldText returns pl with its text, read from where the enqueue held it
// when pl says it is held; ErrTextGone when it is not there.
func (q *Queue) HeldText(ctx context.Context, jobID string, pl DocumentPayload) (DocumentPayload, error) {
	if !pl.TextHeld {
		return pl, nil
	}
	text, err := q.rdb.Get(ctx, q.keys.Text(jobID)).Result()
	if errors.Is(err, redis.Nil) {
		return pl, ErrTextGone
	}
	if err != nil {
		return pl, err
	}
	pl.Text = text
	return pl, nil
}

// ReleaseText drops jobID's held text, if any: its job has ended. Best
// effort: the key expires anyway.
func (q *Queue) ReleaseText(ctx context.Context, jobID string) {
	_ = q.rdb.Del(context.WithoutCancel(ctx), q.keys.Text(jobID)).Err()
}
