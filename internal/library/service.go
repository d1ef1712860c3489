// Package library answers the requests about a knowledge base's contents
// that REST, MCP and the watcher share, without their transport: index
// requests and uploads validated and their jobs enqueued; jobs reported,
// waited for, listed and cancelled; documents listed, read, shared and
// deleted, namespaces cleared and counted; the health probe. It enqueues
// jobs and runs none: the worker does. The sources are sourcesvc's, the
// archives archivesvc's, the embedder switch embeddersvc's.
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
