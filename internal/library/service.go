// Package library keeps the knowledge base's contents: it validates index
// requests and enqueues their jobs, reports and waits for jobs, lists,
// reads and deletes documents, clears namespaces and counts what each
// holds.
package library

import (
	"log/slog"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs"
)

// Service answers the ingest, job, document and statistics requests.
type Service struct {
	// Store comes guarded (breaker, timeout, retries).
	Store ragd.ChunkReader
	// Embedder is named in the statistics.
	Embedder ragd.Embedder
	Registry *registry.Registry
	Queue    *jobs.Queue
	// Versions deletes documents and clears namespaces.
	Versions *versions.Keeper
	// Roots confine file paths; Fetcher checks URLs before a job is queued.
	Roots   *guard.Roots
	Fetcher *guard.Fetcher
	// MaxDirectoryFiles bounds a sync's plan, as it bounds a directory job.
	MaxDirectoryFiles int
	// Uploads keeps uploaded bytes; nil refuses uploads.
	Uploads *Uploads
	// WaitTimeout bounds how long a wait:true request waits for its job.
	WaitTimeout time.Duration
	// MaxTextBytes refuses inline text of more bytes (413,
	// ingest.max_document_text_bytes); 0 bounds nothing.
	MaxTextBytes int64
	Log          *slog.Logger
}
