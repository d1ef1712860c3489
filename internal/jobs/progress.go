package jobs

import (
	"encoding/json"

	"github.com/hibiken/asynq"

	"ragd"
)

// Reporter writes a running task's progress and result where Job reads them.
type Reporter struct {
	w        *asynq.ResultWriter
	progress ragd.Progress
	children []childRef
}

// NewReporter returns the reporter of t; for a task without a result
// writer (tests) it records nothing. The *Reporter itself must not be nil.
func NewReporter(t *asynq.Task) *Reporter { return &Reporter{w: t.ResultWriter()} }

// Progress records done of total units.
func (r *Reporter) Progress(done, total int, unit string) {
	r.progress = ragd.Progress{Done: done, Total: total, Unit: unit}
	r.write(nil)
}

// Reported is the progress last recorded.
func (r *Reporter) Reported() ragd.Progress { return r.progress }

// Children records a directory job's child jobs.
func (r *Reporter) Children(ids, paths []string) {
	r.children = make([]childRef, len(ids))
	for i := range ids {
		r.children[i] = childRef{ID: ids[i], FilePath: paths[i]}
	}
	r.write(nil)
}

// Result records the final result.
func (r *Reporter) Result(result any) { r.write(result) }

func (r *Reporter) write(result any) {
	if r == nil || r.w == nil {
		return
	}
	body, err := json.Marshal(report{Progress: r.progress, Result: result, Children: r.children})
	if err == nil {
		// A failed progress write must not fail the job: progress is advisory.
		_, _ = r.w.Write(body)
	}
}
