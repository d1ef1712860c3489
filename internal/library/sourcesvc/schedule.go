package sourcesvc

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"ragd"
	"ragd/internal/catalog/lease"
)

// Scheduler starts the sources' scheduled syncs. Every replica runs one,
// and only the holder of the lease (sources:scheduler) starts anything,
// so a sync is started once however many replicas there are. A source
// whose time came starts one sync, then is due every from then (plus
// jitter): runs missed while no replica scheduled are caught up once,
// not one per missed period. A source whose last sync is still queued or
// running is not started again. A scheduled sync's job id follows the
// source and its due time, so two starts of the same run are one job.
type Scheduler struct {
	Sources *Sources
	Lease   *lease.Lease
	// Tick is how often the holder looks for due sources
	// (sources.schedule_tick).
	Tick time.Duration
	Log  *slog.Logger

	held bool
}

// Run schedules until ctx ends, then gives the lease up.
func (sc *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(sc.Tick)
	defer t.Stop()
	for {
		if _, err := sc.Step(ctx, time.Now()); err != nil && ctx.Err() == nil {
			sc.Log.WarnContext(ctx, "source schedule", "err", err)
		}
		select {
		case <-ctx.Done():
			if sc.held {
				_ = sc.Lease.Release(context.WithoutCancel(ctx))
			}
			return
		case <-t.C:
		}
	}
}

// Step takes or renews the lease and, when held, starts the syncs due at
// now; it returns how many it started.
func (sc *Scheduler) Step(ctx context.Context, now time.Time) (int, error) {
	var err error
	if sc.held {
		sc.held, err = sc.Lease.Renew(ctx)
	}
	if !sc.held && err == nil {
		sc.held, err = sc.Lease.Acquire(ctx)
	}
	if err != nil || !sc.held {
		return 0, err
	}
	all, err := sc.Sources.Store.List(ctx)
	if err != nil {
		return 0, err
	}
	started := 0
	for _, src := range all {
		if src.NextSync == nil || src.NextSync.After(now) {
			continue
		}
		if err := sc.due(ctx, src, now); err != nil {
			sc.Log.WarnContext(ctx, "scheduled source sync not started", "source_id", src.ID, "err", err)
			continue
		}
		started++
	}
	return started, nil
}

// due starts src's scheduled sync, as who added it, and moves its next
// time on from now.
func (sc *Scheduler) due(ctx context.Context, src ragd.Source, now time.Time) error {
	id := "sched-" + src.ID + "-" + strconv.FormatInt(src.NextSync.Unix(), 10)
	if _, err := sc.Sources.start(ragd.WithAudience(ctx, ragd.ViewerAudience(src.Viewer)), src, id, src.Viewer, false); err != nil {
		return err
	}
	was := *src.NextSync
	_, err := sc.Sources.Store.Update(ctx, src.ID, func(r *ragd.Source) error {
		if r.NextSync != nil && r.NextSync.Equal(was) {
			r.NextSync = sc.Sources.next(*r, now)
		}
		return nil
	})
	return err
}
