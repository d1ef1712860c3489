package wire

import "ragd"

// IndexRequest names one source to index: exactly one of FilePath, URL, Text.
type IndexRequest struct {
	FilePath string   `json:"file_path,omitempty"`
	URL      string   `json:"url,omitempty"`
	Text     string   `json:"text,omitempty"`
	Title    string   `json:"title,omitempty"`
	KBName   string   `json:"kb_name,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Access is nil when not given: the document keeps its access.
	Access []string `json:"access,omitempty" jsonschema:"groups to share the document with, at most 100 names of up to 128 characters (absent: the document keeps its access, a new one is open; []: everyone who may use the namespace)"`
	Force  bool     `json:"force,omitempty"`
}

// DirectoryRequest names a directory to index: rag_index_directory and
// core_ingest_directory.
type DirectoryRequest struct {
	DirectoryPath string   `json:"directory_path" jsonschema:"a directory inside the server's ingest roots"`
	Recursive     *bool    `json:"recursive,omitempty" jsonschema:"include subdirectories (default true)"`
	KBName        string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default)"`
	Tags          []string `json:"tags,omitempty"`
	Access        []string `json:"access,omitempty" jsonschema:"groups to share every file's document with (absent: each keeps its access, new ones are open; []: everyone who may use the namespace)"`
	Force         bool     `json:"force,omitempty"`
	// Sync indexes only what changed since the last run; Prune (default
	// true) then deletes the documents whose file is gone; DryRun answers
	// with the plan and enqueues nothing.
	Sync   bool  `json:"sync,omitempty" jsonschema:"index only new and changed files (by size and modification time); unchanged files are skipped unread"`
	Prune  *bool `json:"prune,omitempty" default:"true" jsonschema:"with sync: delete the documents whose file under the directory is gone (default true)"`
	DryRun bool  `json:"dry_run,omitempty" jsonschema:"with sync: answer with the plan {added, changed, unchanged, deleted} and change nothing"`
	// IncludeIgnored walks what a directory walk skips by default:
	// node_modules and what .gitignore and .ragdignore files exclude.
	IncludeIgnored bool `json:"include_ignored,omitempty" jsonschema:"also index what the walk skips by default: node_modules directories and what .gitignore and .ragdignore files exclude (hidden files stay skipped)"`
	// Wait is for the transport: it waits for the job after Index.
	Wait bool `json:"wait,omitempty" jsonschema:"wait for all files (up to the server's wait limit, with progress notifications)"`
}

// Enqueued is the immediate answer to an ingest request.
type Enqueued struct {
	JobID      *string        `json:"job_id"`
	Status     ragd.JobStatus `json:"status"`
	DocumentID string         `json:"document_id,omitempty"`
	DedupHit   bool           `json:"dedup_hit"`
	Source     string         `json:"-"`
	Existing   *ragd.Document `json:"-"`
}

// ImportEnqueued answers POST /kb/{kb_name}/import: the job that loads the
// archive, and what the archive holds.
type ImportEnqueued struct {
	JobID  string         `json:"job_id"`
	Status ragd.JobStatus `json:"status"`
	KBName string         `json:"kb_name" jsonschema:"the namespace the archive is loaded into"`
	// FromKBName is the namespace the archive was exported from.
	FromKBName string `json:"from_kb_name" jsonschema:"the namespace the archive was exported from"`
	Documents  int    `json:"documents"`
	Chunks     int    `json:"chunks"`
	Images     int    `json:"images"`
}

// Uploaded answers an upload: one entry per file, in the order given.
type Uploaded struct {
	KBName string      `json:"kb_name"`
	Jobs   []UploadJob `json:"jobs"`
}

// UploadJob is one uploaded file's job.
type UploadJob struct {
	JobID      *string        `json:"job_id" jsonschema:"null when nothing had to be done (dedup_hit)"`
	Status     ragd.JobStatus `json:"status" jsonschema:"queued; with wait, the job's last status"`
	DocumentID string         `json:"document_id" jsonschema:"DocumentID(kb_name, source); for a dedup hit, the document that already holds these bytes"`
	Filename   string         `json:"filename" jsonschema:"the name the file is kept under: its base name"`
	Source     string         `json:"source" jsonschema:"upload://<kb_name>/<filename>"`
	Bytes      int64          `json:"bytes"`
	DedupHit   bool           `json:"dedup_hit" jsonschema:"the same bytes are already indexed in this namespace: no job"`
	// ChunksIndexed and Error are filled by a wait.
	ChunksIndexed *int   `json:"chunks_indexed,omitempty" jsonschema:"with wait, once completed"`
	Error         string `json:"error,omitempty" jsonschema:"with wait, if the job failed: why"`
}

// ImportResult is what a finished import job reports: the result of
// GET /jobs/{job_id} for an import.
type ImportResult struct {
	KBName     string `json:"kb_name"`
	FromKBName string `json:"from_kb_name"`
	// DocumentsImported counts the documents made current, of which
	// DocumentsReplaced replaced another version of the same document.
	DocumentsImported int `json:"documents_imported"`
	DocumentsReplaced int `json:"documents_replaced"`
	ChunksImported    int `json:"chunks_imported"`
	ImagesImported    int `json:"images_imported"`
	// DocumentsSkipped counts the documents the export left out.
	DocumentsSkipped int `json:"documents_skipped"`
}
