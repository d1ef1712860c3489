package switchjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ragd"
	"ragd/internal/adapter/httpapi"
	"ragd/internal/jobs"
	"ragd/internal/store/live"
)

// RunSwitch carries out the switch recorded under ref's job id from
// wherever it stands, so a run that died resumes: it waits until every
// process writes to both collections, copies what the copy has not yet
// copied, checks the namespaces deleted from meanwhile, cuts over, waits
// until every process follows, and drops the old collection.
func (e *Runner) RunSwitch(ctx context.Context, ref jobs.Ref, rep *jobs.Reporter) error {
	st, err := e.Live.Records().Load(ctx)
	if err != nil {
		return err
	}
	if st.Switch == nil || st.Switch.JobID != ref.ID {
		return nil // finished by an earlier run, or abandoned
	}
	switch st.Switch.Phase {
	case live.PhaseCopying:
		if st, err = e.copyPhase(ctx, st, ref, rep); err != nil {
			return err
		}
		fallthrough
	case live.PhaseDropping:
		return e.dropPhase(ctx, st, rep)
	default: // cancelling: the cancel's cleanup finishes it
		return e.finishCancel(ctx, st)
	}
}

// copyPhase copies, reconciles and cuts over; it returns the state after
// the cutover.
func (e *Runner) copyPhase(ctx context.Context, st live.State, ref jobs.Ref, rep *jobs.Reporter) (live.State, error) {
	if err := e.waitFollowed(ctx, st.Gen); err != nil {
		return st, err
	}
	from, err := e.Live.Side(ctx, st.Switch.From)
	if err != nil {
		return st, err
	}
	to, err := e.Live.Side(ctx, st.Switch.To)
	if err != nil {
		return st, err
	}
	if err := e.copyAll(ctx, st.Switch, from, to, rep); err != nil {
		return st, err
	}
	if err := e.reconcileDirty(ctx, from, to); err != nil {
		return st, err
	}
	if err := e.Queue.ClaimCommit(ctx, ref); err != nil {
		return st, err
	}
	if st, err = e.Live.Records().CutOver(ctx, ref.ID); err != nil {
		return st, err
	}
	e.Log.InfoContext(ctx, "embedder switch cut over", "job_id", ref.ID, "live", st.Live.Name, "collection", st.Live.Collection)
	return st, nil
}

// dropPhase invalidates the cache (here, so a run resumed after the
// cutover does it too), waits until every process has followed the
// cutover, copies again what failed to reach the new collection since,
// then drops the old one and forgets the switch.
func (e *Runner) dropPhase(ctx context.Context, st live.State, rep *jobs.Reporter) error {
	sw := *st.Switch
	to, err := e.Live.Side(ctx, sw.To)
	if err != nil {
		return err
	}
	e.invalidateAll(ctx, to)
	if err := e.waitFollowed(ctx, st.Gen); err != nil {
		return err
	}
	from, err := e.Live.Side(ctx, sw.From)
	if err != nil {
		return err
	}
	if err := e.reconcileDirty(ctx, from, to); err != nil {
		return err
	}
	if err := from.Drop(ctx); err != nil {
		return fmt.Errorf("drop collection %s: %w", sw.From.Collection, err)
	}
	e.Live.Forget(sw.From)
	if err := e.Live.Records().Finish(ctx, sw.JobID); err != nil {
		return err
	}
	rep.Result(SwitchResult{From: sw.From.Name, To: sw.To.Name, Collection: sw.To.Collection, Chunks: sw.Total})
	e.Log.InfoContext(ctx, "embedder switch finished; old collection dropped", "job_id", sw.JobID, "dropped", sw.From.Collection)
	return nil
}

// SwitchResult is what a finished switch reports.
type SwitchResult struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Collection string `json:"collection"`
	Chunks     int    `json:"chunks"`
}

// CancelSwitch undoes the switch of job id: every process stops writing
// to the new collection, which is then dropped; the old one never stopped
// being live. A switch past its cutover is not undone (its claim refused
// the cancel).
func (e *Runner) CancelSwitch(ctx context.Context, id string) error {
	st, err := e.Live.Records().Cancelling(ctx, id)
	if errors.Is(err, live.ErrSwitchGone) {
		return nil
	}
	if err != nil {
		return err
	}
	return e.finishCancel(ctx, st)
}

func (e *Runner) finishCancel(ctx context.Context, st live.State) error {
	sw := *st.Switch
	if err := e.waitFollowed(ctx, st.Gen); err != nil {
		return err
	}
	to, err := e.Live.Side(ctx, sw.To)
	if err == nil {
		err = to.Drop(ctx)
	}
	if err != nil {
		return fmt.Errorf("drop collection %s: %w", sw.To.Collection, err)
	}
	e.Live.Forget(sw.To)
	if _, err := e.Live.Records().TakeDirty(ctx); err != nil {
		return err
	}
	err = e.Live.Records().Finish(ctx, sw.JobID)
	e.Log.InfoContext(ctx, "embedder switch cancelled; its collection dropped", "job_id", sw.JobID, "dropped", sw.To.Collection)
	return err
}

// waitFollowed waits until every live process follows gen: none pins an
// older snapshot any more. It waits at least two polls, so a process that
// started meanwhile has said which it follows.
func (e *Runner) waitFollowed(ctx context.Context, gen int64) error {
	poll := e.Live.Poll()
	if err := e.Live.Refresh(ctx); err != nil {
		return err
	}
	start := time.Now()
	nextLog := start.Add(10 * time.Second)
	for {
		behind, err := e.Live.Records().Behind(ctx, gen, 3*poll)
		if err != nil {
			return err
		}
		if len(behind) == 0 && time.Since(start) >= 2*poll {
			return nil
		}
		if len(behind) > 0 && time.Now().After(nextLog) {
			nextLog = nextLog.Add(10 * time.Second)
			e.Log.InfoContext(ctx, "embedder switch waiting for processes still using the previous state", "gen", gen, "behind", behind)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll / 4):
		}
		if err := e.Live.Refresh(ctx); err != nil {
			return err
		}
	}
}

// invalidateAll moves every namespace's cache generation: the results
// cached before the cutover were ranked in the other vector space.
func (e *Runner) invalidateAll(ctx context.Context, side *live.Side) {
	namespaces, err := side.Store.Namespaces(ctx)
	if err != nil {
		e.Log.WarnContext(ctx, "cache not invalidated after the embedder switch; results expire with the cache TTL", "error", err)
		return
	}
	for _, ns := range namespaces {
		if err := e.Versions.Invalidate(ctx, ns); err != nil {
			e.Log.WarnContext(ctx, "cache of a namespace not invalidated after the embedder switch", "kb_name", ns, "error", err)
		}
	}
}

// retry runs fn until it succeeds or ctx ends. A failure (the embedder
// down, rate-limited, Weaviate refusing) does not fail the switch: it is
// shown in GET /embedder and tried again after the wait the provider
// asked for (Retry-After), else after a backoff up to 10 s.
func (e *Runner) retry(ctx context.Context, id string, fn func() error) error {
	wait := time.Second
	failed := false
	for {
		err := fn()
		if err == nil {
			if failed {
				e.setError(ctx, id, "")
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		failed = true
		pause := wait
		if ra := httpapi.RetryAfterOf(err); ra > 0 {
			pause = ra
		}
		e.setError(ctx, id, switchFailure(err)+" (retrying in "+pause.Round(time.Second).String()+")")
		e.Log.WarnContext(ctx, "embedder switch waiting to retry a batch", "job_id", id, "error", err, "wait", pause)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// switchFailure is what GET /embedder shows of a failure the copy waits
// out: the status an embedding API answered, else what any caller may read
// of an error (ragd.PublicMessage); the log has the rest.
func switchFailure(err error) string {
	if apiErr, ok := errors.AsType[*httpapi.Error](err); ok {
		return fmt.Sprintf("the embedder answered HTTP %d", apiErr.StatusCode)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the embedder did not answer in time"
	}
	if msg := ragd.PublicMessage(err); msg != "" {
		return msg
	}
	return "a batch failed (the server logged the details)"
}

func (e *Runner) setError(ctx context.Context, id, msg string) {
	_ = e.Live.Records().SetError(ctx, id, msg)
}
