package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"ragd"
	"ragd/client"
	"ragd/wire"
)

// runJobs: ragd jobs, a table of jobs; --watch redraws it until every job
// has ended or the command is interrupted.
func runJobs(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	kb := fs.String("kb", "", "only this namespace's jobs (default: every namespace the key may use)")
	status := fs.String("status", "", "only jobs in this status: queued, active, retry, completed, failed or cancelled")
	watch := fs.Bool("watch", false, "refresh until every job has ended (or until interrupted)")
	every := fs.Duration("interval", time.Second, "with --watch, how often to refresh")
	if _, err := s.parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *status != "" && !slices.Contains(ragd.JobStatuses, ragd.JobStatus(*status)) {
		return usageErrorf("--status must be one of %v, not %q", ragd.JobStatuses, *status)
	}
	if *every <= 0 {
		return usageErrorf("--interval must be positive")
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	req := wire.JobListRequest{KBName: *kb, Status: ragd.JobStatus(*status)}
	if !*watch {
		list, err := c.AllJobs(ctx, req)
		if err != nil {
			return err
		}
		if s.globals.json {
			return s.emit(list)
		}
		s.env.Stdout.Write(jobTable(list, req))
		return nil
	}
	return s.watchJobs(ctx, c, req, *every)
}

// watchJobs redraws the job table (a terminal) or prints it when it has
// changed (elsewhere) until every job has ended; with --json it prints only
// the last list. An interrupt ends the watch without error.
func (s *session) watchJobs(ctx context.Context, c *client.Client, req wire.JobListRequest, every time.Duration) error {
	var last []byte
	var list wire.JobList
	for {
		var err error
		list, err = c.AllJobs(ctx, req)
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			return err
		}
		if !s.globals.json {
			out := jobTable(list, req)
			switch {
			case s.env.Terminal:
				fmt.Fprintf(s.env.Stdout, "\x1b[H\x1b[2J%s  (every %s; Ctrl-C to stop)\n", out, every)
			case !bytes.Equal(out, last):
				if last != nil {
					fmt.Fprintln(s.env.Stdout)
				}
				s.env.Stdout.Write(out)
			}
			last = out
		}
		if allEnded(list.Jobs) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(every):
		}
		if ctx.Err() != nil {
			break
		}
	}
	if s.globals.json {
		return s.emit(list)
	}
	return nil
}

func allEnded(jobs []ragd.Job) bool {
	for _, j := range jobs {
		if !j.Status.Terminal() {
			return false
		}
	}
	return true
}

// jobTable renders jobs as a table, or says which of req's filters found
// none.
func jobTable(list wire.JobList, req wire.JobListRequest) []byte {
	var b bytes.Buffer
	if len(list.Jobs) == 0 {
		b.WriteString(noJobs(req))
		return b.Bytes()
	}
	rows := make([][]string, len(list.Jobs))
	for i, j := range list.Jobs {
		progress := "-"
		if j.Progress.Total > 0 || j.Progress.Done > 0 {
			progress = fmt.Sprintf("%d/%d %s", j.Progress.Done, j.Progress.Total, j.Progress.Unit)
		}
		rows[i] = []string{j.ID, j.Namespace, j.Type, string(j.Status), progress, stamp(j.CreatedAt), oneLine(jobError(j), 60)}
	}
	table(&b, []string{"JOB", "KB", "TYPE", "STATUS", "PROGRESS", "CREATED", "ERROR"}, rows)
	fmt.Fprintf(&b, "%d of %d jobs\n", list.Count, list.Total)
	return b.Bytes()
}

// jobError is a job's error, or for a directory whose files failed, how
// many did (the files are in its job status): such a directory completes
// and is what --status failed finds.
func jobError(j ragd.Job) string {
	var res ragd.DirectoryResult
	if j.Error != "" || json.Unmarshal(j.Result, &res) != nil || res.FilesFailed == 0 {
		return j.Error
	}
	return fmt.Sprintf("%d of %d files failed", res.FilesFailed, res.FilesTotal)
}

// noJobs says that no job matched req and, when a filter narrowed the
// listing, which one and how to widen it.
func noJobs(req wire.JobListRequest) string {
	var what, widen []string
	if req.Status != "" {
		what = append(what, string(req.Status))
		widen = append(widen, "--status")
	}
	what = append(what, "jobs")
	if req.KBName != "" {
		what = append(what, "in namespace "+req.KBName)
		widen = append(widen, "--kb")
	} else {
		what = append(what, "in the namespaces this key may use")
	}
	msg := "no " + strings.Join(what, " ")
	if len(widen) > 0 {
		msg += " (drop " + strings.Join(widen, " or ") + " to see more)"
	}
	return msg + "\n"
}

// runCancel: ragd cancel JOB.
func runCancel(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	pos, err := s.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	res, err := c.CancelJob(ctx, pos[0])
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(res)
	}
	s.printf("job %s %s\n", res.JobID, res.Status)
	return nil
}
