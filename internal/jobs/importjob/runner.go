// Package importjob runs the import job: it checks a stored archive whole
// again, writes its chunks and pictures with their vectors, makes each
// document current once all its chunks are in the store (as an ingest
// does), and after a last failure or a cancel discards what it wrote of
// documents it did not make current (docs/ARCHIVE.md). The upload that
// enqueues an import is package library's; the format and the rules an
// archive is held to are package archive's.
package importjob

import (
	"log/slog"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
)

// Runner runs import jobs.
type Runner struct {
	// Store comes guarded (breaker, timeout, retries).
	Store ragd.ChunkStore
	// Embedder names the vectors an archive must carry.
	Embedder ragd.Embedder
	Registry *registry.Registry
	// Versions makes each imported document current, and discards what a
	// failed import wrote.
	Versions *versions.Keeper
	// PageSize is how many chunks are written per store call.
	PageSize int
	// CommitBatch is how many documents an import makes current at once;
	// 0 means DefaultCommitBatch.
	CommitBatch int
	Log         *slog.Logger
}

func (a *Runner) commitBatch() int {
	if a.CommitBatch <= 0 {
		return DefaultCommitBatch
	}
	return a.CommitBatch
}

func (a *Runner) pageSize() int { return archive.PageSize(a.PageSize) }
