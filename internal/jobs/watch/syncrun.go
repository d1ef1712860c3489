package watch

import (
	"context"

	"ragd/wire"
)

// syncRun runs one sync job at a time: a change seen while a sync runs
// makes one more sync when it ends, however many changes there were.
type syncRun struct {
	w       *Watcher
	running string // job id of the sync in flight, "" when none
	dirty   bool
}

// request asks for a sync: now if none runs, else after the running one.
func (s *syncRun) request(ctx context.Context) {
	s.dirty = true
	if s.running == "" {
		s.start(ctx)
	}
}

// poll checks the running sync and starts the next one when it ended.
func (s *syncRun) poll(ctx context.Context) {
	if s.running == "" {
		if s.dirty {
			s.start(ctx) // an earlier enqueue failed: try again
		}
		return
	}
	job, err := s.w.lib.Job(ctx, s.running)
	if err == nil && !job.Status.Terminal() {
		return
	}
	if err == nil && job.Error != "" {
		s.w.log.Warn("sync failed", "job_id", s.running, "error", job.Error)
	}
	s.running = ""
	if s.dirty {
		s.start(ctx)
	}
}

func (s *syncRun) start(ctx context.Context) {
	e := s.w.entry
	recursive, prune := e.Recursive, e.Prune
	enq, err := s.w.lib.IndexDirectory(ctx, wire.DirectoryRequest{DirectoryPath: e.Path, KBName: e.KBName,
		Recursive: &recursive, Sync: true, Prune: &prune})
	if err != nil {
		s.w.log.Warn("sync not enqueued; trying again", "error", err)
		return
	}
	s.dirty, s.running = false, *enq.JobID
	s.w.log.Debug("sync enqueued", "job_id", s.running)
}
