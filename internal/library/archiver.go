package library

import (
	"log/slog"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/jobs"
)

// Archiver exports a namespace as one archive and imports archives into
// namespaces (docs/ARCHIVE.md): backups, and moves between ragd servers or
// namespaces. The REST API serves the export and takes the upload; the
// worker runs the import job.
type Archiver struct {
	// Store comes guarded (breaker, timeout, retries).
	Store ragd.ChunkStore
	// Embedder names the vectors an archive carries; an archive of another
	// embedder or dimension is refused.
	Embedder ragd.Embedder
	Registry *registry.Registry
	Queue    *jobs.Queue
	// Versions makes each imported document current, and discards what a
	// failed import wrote.
	Versions *versions.Keeper
	// Dir keeps uploaded archives until their import job ends
	// (<data.dir>/imports); API and worker must share it.
	Dir string
	// MaxBytes bounds an uploaded archive (import.max_bytes).
	MaxBytes int64
	// PageSize is how many chunks are read or written per store call.
	PageSize int
	// CommitBatch is how many documents an import makes current at once;
	// 0 means DefaultCommitBatch.
	CommitBatch int
	Log         *slog.Logger
}

// embedder is the server's embedder as an archive header names it.
func (a *Archiver) embedder() archive.Embedder {
	return archive.Embedder{Name: a.Embedder.Name(), Dimension: a.Embedder.Dimension()}
}

// accept refuses an archive whose vectors this server cannot search.
func (a *Archiver) accept(h archive.Header) error {
	if mine := a.embedder(); h.Embedder != mine {
		return ragd.Invalid("embedder", "value_error",
			"the archive's vectors come from embedder %s (dimension %d) but this server embeds with %s (dimension %d); "+
				"vectors of two models cannot be searched together: import the archive into a ragd configured with %s, "+
				"or index its sources again here", h.Embedder.Name, h.Embedder.Dimension, mine.Name, mine.Dimension, h.Embedder.Name)
	}
	return nil
}

func (a *Archiver) commitBatch() int {
	if a.CommitBatch <= 0 {
		return DefaultCommitBatch
	}
	return a.CommitBatch
}

func (a *Archiver) pageSize() int {
	if a.PageSize <= 0 {
		return 200
	}
	return a.PageSize
}
