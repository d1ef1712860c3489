// Package archivesvc answers the archive requests without their
// transport: a namespace's export written as one archive, and the upload
// of an archive to import, checked whole while it is stored before the
// import job (package importjob, which loads it) is enqueued.
package archivesvc

import (
	"log/slog"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/jobs"
)

// Archiver exports a namespace as one archive and takes the upload of an
// archive to import into a namespace (docs/ARCHIVE.md): backups, and
// moves between ragd servers or namespaces. The REST API serves the
// export and takes the upload; the import job (package importjob) loads
// it.
type Archiver struct {
	// Store comes guarded (breaker, timeout, retries).
	Store ragd.ChunkStore
	// Embedder names the vectors an archive carries; an archive of another
	// embedder or dimension is refused.
	Embedder ragd.Embedder
	Registry *registry.Registry
	Queue    *jobs.Queue
	// Versions reads each exported document's words.
	Versions *versions.Keeper
	// Dir keeps uploaded archives until their import job ends
	// (<data.dir>/imports); API and worker must share it.
	Dir string
	// MaxBytes bounds an uploaded archive (import.max_bytes).
	MaxBytes int64
	// PageSize is how many chunks are read or written per store call.
	PageSize int
	Log      *slog.Logger
}

// embedder is the server's embedder as an archive header names it.
func (a *Archiver) embedder() archive.Embedder { return archive.EmbedderOf(a.Embedder) }

func (a *Archiver) pageSize() int { return archive.PageSize(a.PageSize) }
