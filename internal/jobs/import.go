package jobs

import (
	"context"
	"time"

	"ragd/internal/platform/telemetry"
)

// TypeImport loads an archive into a namespace (docs/ARCHIVE.md).
const TypeImport = "kb:import"

// ImportPayload asks a worker to load an archive, stored and validated
// when it was uploaded, into a namespace.
type ImportPayload struct {
	// Namespace is the namespace the archive goes into.
	Namespace string `json:"kb_name"`
	// ArchivePath is the stored archive, under <data.dir>/imports.
	ArchivePath string `json:"archive_path"`
	// FromKBName is the namespace the archive was exported from.
	FromKBName string    `json:"from_kb_name"`
	CreatedAt  time.Time `json:"created_at"`

	Traced
}

// EnqueueImport enqueues an import task under jobID.
func (q *Queue) EnqueueImport(ctx context.Context, jobID string, p ImportPayload) error {
	return traced(ctx, TypeImport, jobID, p.Namespace, false, func(ctx context.Context, c *telemetry.Carrier) error {
		p.Trace = c
		return q.enqueue(ctx, TypeImport, jobID, p)
	})
}
