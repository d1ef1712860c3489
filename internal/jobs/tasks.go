// Package jobs defines ragd's Asynq tasks: their types and payloads, how they
// are enqueued, how a running task reports progress, how a job's state is
// read back for agents that poll it, and how jobs are listed, counted and cancelled.
package jobs

import (
	"time"

	"ragd"
	"ragd/internal/platform/telemetry"
)

// Task types.
const (
	TypeIngestDocument  = "ingest:document"
	TypeIngestDirectory = "ingest:directory"
)

// DocumentPayload asks a worker to index one source.
type DocumentPayload struct {
	Namespace  string          `json:"kb_name"`
	DocumentID string          `json:"document_id"`
	Source     string          `json:"source"` // canonical source URI
	SourceType ragd.SourceType `json:"source_type,omitempty"`
	FilePath   string          `json:"file_path,omitempty"` // resolved, inside an ingest root
	URL        string          `json:"url,omitempty"`
	Text       string          `json:"text,omitempty"`
	// TextHeld says the job's inline text is held under its own key, not
	// here (text.go); a payload from an earlier ragd has it in Text.
	TextHeld bool     `json:"text_held,omitempty"`
	Title    string   `json:"title,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Access is the document's new access (ragd.NormalizeAccess form);
	// nil keeps what the document has.
	Access *[]string `json:"access,omitempty"`
	// Viewer is the groups of the principal that asked (ragd.Audience),
	// nil when it sees every document: a job may not replace, nor
	// re-share, a document hidden from it.
	Viewer    *[]string `json:"viewer,omitempty"`
	Force     bool      `json:"force,omitempty"`
	ParentID  string    `json:"parent_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`

	// Upload is the sha256 of uploaded bytes kept under the uploads
	// directory, which outlive the request so a retried job still has
	// them; Filename is the name they were uploaded under.
	Upload   string `json:"upload,omitempty"`
	Filename string `json:"filename,omitempty"`

	// Distinct makes the document its own even when another document of
	// the namespace holds the same content (a source's file, which its
	// next sync must find as it left it); its own unchanged content is
	// still not indexed again.
	Distinct bool `json:"distinct,omitempty"`

	// WebURL and Commit are a git source's file's citation and the commit
	// it was read at (ragd.Document's).
	WebURL string `json:"web_url,omitempty"`
	Commit string `json:"commit,omitempty"`
	// MoveFrom is the document of the same content under the source's
	// old name (a renamed file): its chunks' vectors are carried over
	// instead of embedding again, and it is deleted once this one is
	// indexed.
	MoveFrom string `json:"move_from,omitempty"`

	Traced
}

// Traced is the trace context a task's payload carries from the span that
// enqueued it to the worker's (trace.go); nil when it was not traced.
type Traced struct {
	Trace *telemetry.Carrier `json:"trace,omitempty"`
}

// AccessFor is the access a run of pl leaves its document with: pl's,
// or what prev (the document as recorded, nil for a new one) has when pl
// sets none.
func (pl DocumentPayload) AccessFor(prev *ragd.Document) []string {
	switch {
	case pl.Access != nil:
		return *pl.Access
	case prev != nil:
		return prev.Access
	}
	return nil
}

// DirectoryPayload asks a worker to fan a directory out into document jobs.
type DirectoryPayload struct {
	Namespace     string   `json:"kb_name"`
	DirectoryPath string   `json:"directory_path"` // resolved, inside an ingest root
	Recursive     bool     `json:"recursive"`
	Tags          []string `json:"tags,omitempty"`
	// Access and Viewer are every file's, as DocumentPayload's.
	Access *[]string `json:"access,omitempty"`
	Viewer *[]string `json:"viewer,omitempty"`
	Force  bool      `json:"force,omitempty"`
	// Sync indexes only new and changed files and, with Prune, deletes
	// the documents whose file under the directory is gone.
	Sync      bool      `json:"sync,omitempty"`
	Prune     bool      `json:"prune,omitempty"`
	CreatedAt time.Time `json:"created_at"`

	// IncludeIgnored walks what the ignore rules skip (ingest.Skipper).
	IncludeIgnored bool `json:"include_ignored,omitempty"`

	// SourceID, when set, makes the job a source's sync: its files come
	// from the source's plan (a git tree diff), not a walk of
	// DirectoryPath, which then holds the source's URL.
	SourceID string `json:"source_id,omitempty"`

	Traced
}

// report is what a task writes through Asynq's result writer: progress while
// it runs, the result when it ends.
type report struct {
	Progress ragd.Progress `json:"progress"`
	Result   any           `json:"result,omitempty"`
	Children []childRef    `json:"children,omitempty"`
}

type childRef struct {
	ID       string `json:"job_id"`
	FilePath string `json:"file_path"`
}
