package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ragd"
	"ragd/client"
)

// How a path was ingested.
const (
	ModeInPlace = "in_place" // read by the server from its disk
	ModeUpload  = "upload"   // sent to the server
)

// IngestSummary is how one PATH of ragd ingest ended; --json prints them
// as {"server", "jobs": [...]}.
type IngestSummary struct {
	Path   string `json:"path"`
	Mode   string `json:"mode" jsonschema:"in_place or upload"`
	KBName string `json:"kb_name,omitempty"`
	// Status is completed, failed (the request, the job or one of its
	// files failed) or cancelled.
	Status           string        `json:"status"`
	JobIDs           []string      `json:"job_ids"`
	DocumentIDs      []string      `json:"document_ids,omitempty"`
	FilesIndexed     int           `json:"files_indexed"`
	FilesUnchanged   int           `json:"files_unchanged"`
	FilesFailed      int           `json:"files_failed"`
	FilesCancelled   int           `json:"files_cancelled,omitempty"`
	DocumentsDeleted int           `json:"documents_deleted"`
	Chunks           int           `json:"chunks_indexed"`
	Seconds          float64       `json:"seconds"`
	Failures         []FileFailure `json:"failures,omitempty"`
	// Error is why the request or the job itself failed.
	Error string `json:"error,omitempty"`

	took time.Duration
	// stop is why following stopped early: no answer, or an interrupt.
	stop error
}

// FileFailure is one file that could not be indexed.
type FileFailure struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func (s *IngestSummary) addFailure(file, msg string) {
	s.FilesFailed++
	s.Failures = append(s.Failures, FileFailure{File: file, Error: msg})
}

// finish sets the status from the counts and err (why following stopped),
// and ends the gauge.
func (s *IngestSummary) finish(g *gauge, err error) {
	s.took = time.Since(g.start)
	s.Seconds = s.took.Round(time.Millisecond).Seconds()
	if s.JobIDs == nil {
		s.JobIDs = []string{}
	}
	if err != nil {
		s.Error = err.Error()
		if client.IsUnreachable(err) || errors.Is(err, context.Canceled) {
			s.stop = err
		}
	}
	switch {
	case s.Error != "" || s.FilesFailed > 0:
		s.Status = string(ragd.JobFailed)
	case s.Status == string(ragd.JobCancelled) || s.FilesCancelled > 0:
		s.Status = string(ragd.JobCancelled)
	default:
		s.Status = string(ragd.JobCompleted)
	}
	g.finish(s.Status != string(ragd.JobCompleted))
}

// line is the summary for people.
func (s *IngestSummary) line() string {
	where := "in place"
	if s.Mode == ModeUpload {
		where = "uploaded"
	}
	if s.KBName != "" {
		where += " to " + s.KBName
	}
	counts := fmt.Sprintf("%d indexed, %d unchanged, %d failed, %d deleted, %d chunks, %s",
		s.FilesIndexed, s.FilesUnchanged, s.FilesFailed, s.DocumentsDeleted, s.Chunks, seconds(s.took))
	if s.FilesCancelled > 0 {
		counts = fmt.Sprintf("%d cancelled, ", s.FilesCancelled) + counts
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s: %s", s.Path, where, s.Status, counts)
	if s.Error != "" {
		fmt.Fprintf(&b, "\n  error: %s", oneLine(s.Error, 300))
	}
	for _, f := range s.Failures {
		fmt.Fprintf(&b, "\n  failed: %s: %s", f.File, oneLine(f.Error, 300))
	}
	return b.String()
}

// reportIngest prints the summaries and returns the command's outcome:
// unreachable (3) if any path could not reach the server, failed (1) if any
// did not complete.
func (s *session) reportIngest(server string, results []*IngestSummary) error {
	if s.globals.json {
		if err := s.emit(struct {
			Server string           `json:"server"`
			Jobs   []*IngestSummary `json:"jobs"`
		}{server, results}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintln(s.env.Stdout, r.line())
		}
	}
	failed := 0
	for _, r := range results {
		if r.stop != nil {
			return r.stop
		}
		if r.Status != string(ragd.JobCompleted) {
			failed++
		}
	}
	if failed > 0 {
		return &failedError{msg: fmt.Sprintf("%d of %d paths did not complete", failed, len(results))}
	}
	return nil
}
