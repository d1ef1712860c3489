package ragd

import (
	"encoding/json"
	"time"
)

// JobStatus is where an ingest job is in its life.
type JobStatus string

// The job states agents see. Asynq's own states map onto these.
const (
	JobQueued    JobStatus = "queued"
	JobActive    JobStatus = "active"
	JobRetry     JobStatus = "retry"
	JobCompleted JobStatus = "completed"
	JobFailed    JobStatus = "failed"
	// JobCancelled is a job stopped by request: it wrote nothing that
	// stays (a document keeps its previous version).
	JobCancelled JobStatus = "cancelled"
)

// JobStatuses lists every status, in the order a job may pass through them.
var JobStatuses = []JobStatus{JobQueued, JobActive, JobRetry, JobCompleted, JobFailed, JobCancelled}

// Terminal reports whether the job will not change any more.
func (s JobStatus) Terminal() bool { return s == JobCompleted || s == JobFailed || s == JobCancelled }

// Progress counts a job's units of work (chunks for a document, files for a
// directory; pages while a document's scanned pages are read by OCR).
type Progress struct {
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Unit  string `json:"unit"`
}

// Job is an ingest job as agents poll it.
type Job struct {
	ID          string          `json:"job_id"`
	Type        string          `json:"type"`
	Namespace   string          `json:"kb_name"`
	Status      JobStatus       `json:"status" enum:"queued,active,retry,completed,failed,cancelled"`
	Progress    Progress        `json:"progress"`
	Result      json.RawMessage `json:"result"`
	Error       string          `json:"error"`
	Retried     int             `json:"retried"`
	CreatedAt   time.Time       `json:"created_at"`
	CompletedAt *time.Time      `json:"completed_at"`
	// Children lists a directory job's per-file jobs: all of them, or one
	// page when the read asked for one (its progress and result count all).
	Children []ChildJob `json:"children,omitempty"`
	// ChildrenNextOffset is the offset of the next page of Children, when
	// a page was asked for and more follow.
	ChildrenNextOffset *int `json:"children_next_offset,omitempty"`
	// TraceID is the trace of the request that enqueued the job, which
	// its runs continue (telemetry on); empty when it was not traced.
	TraceID string `json:"trace_id,omitempty"`
}

// ChildJob is one file of a directory job.
type ChildJob struct {
	ID       string    `json:"job_id"`
	FilePath string    `json:"file_path"`
	Status   JobStatus `json:"status" enum:"queued,active,retry,completed,failed,cancelled"`
	Chunks   int       `json:"chunks_indexed"`
	Error    string    `json:"error,omitempty"`
}

// DocumentResult is what a finished document job reports.
type DocumentResult struct {
	DocumentID    string `json:"document_id"`
	Source        string `json:"source"`
	ChunksIndexed int    `json:"chunks_indexed"`
	DedupHit      bool   `json:"dedup_hit"`
	ContentHash   string `json:"content_hash,omitempty"`
	// Replaced counts the previous version's chunks that were removed.
	Replaced int `json:"replaced_chunks,omitempty"`
	// ImagesIndexed counts the PDF/DOCX images indexed for visual retrieval.
	ImagesIndexed int `json:"images_indexed,omitempty"`
	// PagesOCR counts the scanned PDF pages whose text was read by OCR.
	PagesOCR int `json:"pages_ocr,omitempty"`
	// MovedFrom is the document a file renamed in its source left, now
	// deleted; VectorsCarried counts the chunks whose vectors it gave
	// instead of embedding them again.
	MovedFrom      string `json:"moved_from,omitempty"`
	VectorsCarried int    `json:"vectors_carried,omitempty"`
}

// DirectoryResult is what a finished directory job reports.
type DirectoryResult struct {
	DirectoryPath string `json:"directory_path"`
	FilesTotal    int    `json:"files_total"`
	FilesIndexed  int    `json:"files_indexed"`
	FilesFailed   int    `json:"files_failed"`
	// FilesCancelled counts the files whose jobs were cancelled.
	FilesCancelled int `json:"files_cancelled,omitempty"`
	ChunksIndexed  int `json:"chunks_indexed"`
	// A sync's files skipped unread and documents deleted (file gone).
	FilesUnchanged   int `json:"files_unchanged"`
	DocumentsDeleted int `json:"documents_deleted"`
	// A source's sync: the files new and changed since the last sync (of
	// FilesTotal) and the commit synced.
	FilesAdded   int `json:"files_added,omitempty"`
	FilesChanged int `json:"files_changed,omitempty"`
	// FilesUnread counts a source's items listed but not read (too
	// large, gone since the listing, unreadable): their documents are
	// kept; the source's last sync says why (ragd.SourceSync.Unread).
	FilesUnread int `json:"files_unread,omitempty"`
	// FilesMoved counts the added files that took over a gone file's
	// document (a rename): that document is deleted by the file's job.
	FilesMoved int    `json:"files_moved,omitempty"`
	Commit     string `json:"commit,omitempty"`
}
