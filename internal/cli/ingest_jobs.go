package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"ragd"
	"ragd/client"
)

// Polling: how often jobs are read, how many of a group's per round (the
// oldest unfinished first: the workers take them in order), and how many
// failed reads in a row give up (the jobs go on on the server).
const (
	pollEvery     = 300 * time.Millisecond
	pollPerRound  = 16
	maxPollErrors = 20
)

// docEntry is one document job of a group, as last read.
type docEntry struct {
	file       string
	jobID      *string // nil: a dedup hit, or an upload refused
	documentID string
	dedup      bool
	status     ragd.JobStatus // "" until read (or "failed" for a refused upload)
	progress   ragd.Progress
	chunks     int
	err        string
}

func (e *docEntry) ended() bool { return e.jobID == nil || e.status.Terminal() }

// docJobs is document jobs followed together: one file (in place or
// uploaded), or an uploaded directory's files.
type docJobs struct {
	entries []docEntry
	kbName  string
}

func (d *docJobs) follow(ctx context.Context, c *client.Client, g *gauge) error {
	errs := 0
	for {
		pending, polled := 0, 0
		for i := range d.entries {
			e := &d.entries[i]
			if e.ended() {
				continue
			}
			if pending++; polled >= pollPerRound {
				continue
			}
			polled++
			job, err := c.Job(ctx, *e.jobID)
			if err != nil {
				if errs++; !transient(err) || errs > maxPollErrors {
					return err
				}
				break
			}
			errs = 0
			d.update(e, job)
		}
		d.show(g)
		if pending == 0 {
			return nil
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return err
		}
	}
}

// update records a job's state in its entry.
func (d *docJobs) update(e *docEntry, job *ragd.Job) {
	e.status, e.progress, e.err = job.Status, job.Progress, job.Error
	if d.kbName == "" {
		d.kbName = job.Namespace
	}
	if job.Status == ragd.JobCompleted {
		var res ragd.DocumentResult
		if json.Unmarshal(job.Result, &res) == nil {
			e.chunks, e.dedup = res.ChunksIndexed, e.dedup || res.DedupHit
			if res.DocumentID != "" {
				e.documentID = res.DocumentID
			}
		}
	}
}

// show sets the gauge: one file counts its chunks (or OCR'd pages),
// several count files.
func (d *docJobs) show(g *gauge) {
	if len(d.entries) == 1 {
		e := d.entries[0]
		unit := e.progress.Unit
		if unit == "" {
			unit = "chunks"
		}
		g.set(int64(e.progress.Done), int64(e.progress.Total), unit, phaseOf(e.status), "")
		return
	}
	done, chunks, running := 0, 0, false
	for _, e := range d.entries {
		if e.ended() {
			done++
		}
		chunks += e.chunks
		if e.status == ragd.JobActive {
			chunks += e.progress.Done * boolInt(e.progress.Unit == "chunks")
		}
		running = running || e.status == ragd.JobActive || e.ended()
	}
	phase := ""
	if !running {
		phase = "queued"
	}
	g.set(int64(done), int64(len(d.entries)), "files", phase, fmt.Sprintf("%d chunks", chunks))
}

func (d *docJobs) sum(s *IngestSummary) {
	if d.kbName != "" {
		s.KBName = d.kbName
	}
	for _, e := range d.entries {
		if e.jobID != nil {
			s.JobIDs = append(s.JobIDs, *e.jobID)
		}
		switch {
		case e.err != "" && e.jobID == nil: // refused upload
			s.addFailure(e.file, e.err)
		case e.dedup:
			s.FilesUnchanged++
		case e.status == ragd.JobCompleted:
			s.FilesIndexed++
			s.Chunks += e.chunks
		case e.status == ragd.JobFailed:
			s.addFailure(e.file, e.err)
		case e.status == ragd.JobCancelled:
			s.FilesCancelled++
		}
		if e.documentID != "" {
			s.DocumentIDs = append(s.DocumentIDs, e.documentID)
		}
	}
}

// dirJob is one directory job on the server, with its per-file children.
type dirJob struct {
	id   string
	last *ragd.Job
}

func (d *dirJob) follow(ctx context.Context, c *client.Client, g *gauge) error {
	_, err := followJob(ctx, c, d.id, func(job *ragd.Job) {
		d.last = job
		var res ragd.DirectoryResult
		_ = json.Unmarshal(job.Result, &res)
		chunks := res.ChunksIndexed + runningChunks(ctx, c, job.Children)
		g.set(int64(job.Progress.Done), int64(job.Progress.Total), "files", phaseOf(job.Status),
			fmt.Sprintf("%d chunks", chunks))
	})
	return err
}

// maxRunningPolls bounds the running files read per round: about the
// workers' concurrency.
const maxRunningPolls = 4

// runningChunks is the chunks the running files have written so far: a
// directory's own counts move only as its files end, and one large file
// would otherwise show no progress at all.
func runningChunks(ctx context.Context, c *client.Client, children []ragd.ChildJob) int {
	n, polled := 0, 0
	for _, ch := range children {
		if ch.Status != ragd.JobActive || polled == maxRunningPolls {
			continue
		}
		polled++
		if job, err := c.Job(ctx, ch.ID); err == nil && job.Progress.Unit == "chunks" {
			n += job.Progress.Done
		}
	}
	return n
}

// followJob polls one job until it ends and returns its last state;
// show sees every state read.
func followJob(ctx context.Context, c *client.Client, id string, show func(*ragd.Job)) (*ragd.Job, error) {
	errs := 0
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			if errs++; !transient(err) || errs > maxPollErrors {
				return nil, err
			}
		} else {
			errs = 0
			show(job)
			if job.Status.Terminal() {
				return job, nil
			}
		}
		if err := sleep(ctx, pollDelay(job)); err != nil {
			return nil, err
		}
	}
}

// pollDelay is how long to wait before reading a job again: longer for a
// directory of many files, whose every read lists them all.
func pollDelay(job *ragd.Job) time.Duration {
	if job == nil {
		return pollEvery
	}
	return min(pollEvery+time.Duration(len(job.Children))*200*time.Microsecond, 3*time.Second)
}

func (d *dirJob) sum(s *IngestSummary) {
	if d.id != "" {
		s.JobIDs = []string{d.id}
	}
	job := d.last
	if job == nil {
		return
	}
	s.KBName = job.Namespace
	var res ragd.DirectoryResult
	_ = json.Unmarshal(job.Result, &res)
	s.FilesIndexed, s.FilesUnchanged, s.FilesCancelled = res.FilesIndexed, res.FilesUnchanged, res.FilesCancelled
	s.DocumentsDeleted, s.Chunks = res.DocumentsDeleted, res.ChunksIndexed
	for _, ch := range job.Children {
		if ch.Status == ragd.JobFailed {
			s.addFailure(ch.FilePath, ch.Error)
		}
	}
	s.FilesFailed = max(s.FilesFailed, res.FilesFailed)
	switch job.Status {
	case ragd.JobFailed:
		s.Error = job.Error
	case ragd.JobCancelled:
		s.Status = string(ragd.JobCancelled)
	}
}

// phaseOf is what the gauge says before the counts.
func phaseOf(st ragd.JobStatus) string {
	switch st {
	case "", ragd.JobQueued:
		return "queued"
	case ragd.JobRetry:
		return "retrying"
	default:
		return ""
	}
}

// transient reports whether a failed poll is worth repeating: no answer,
// or the server's dependencies briefly unavailable.
func transient(err error) bool {
	var ae *client.APIError
	return client.IsUnreachable(err) || (errors.As(err, &ae) && ae.Status == http.StatusServiceUnavailable)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
