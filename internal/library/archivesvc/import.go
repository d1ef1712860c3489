package archivesvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"ragd/internal/platform/spool"
	"time"

	"ragd/wire"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/catalog/archive"
	"ragd/internal/jobs"
)

// ImportEnqueued is wire.ImportEnqueued, the contract REST, MCP and the client share.
type ImportEnqueued = wire.ImportEnqueued

// Import stores an uploaded archive under Dir and enqueues the job that
// loads it into namespace kb. The archive is checked whole while it is
// stored: an archive of another embedder is refused as soon as its header
// is read, a record ragd would not have written (importrules.go) when it
// is read, one truncated or damaged when its end shows it, each with a
// 422 saying what is wrong and where, and no job is queued. length is the
// declared size (-1 if unknown); more than MaxBytes is a 413, before or
// while reading.
func (a *Archiver) Import(ctx context.Context, kb string, body io.Reader, length int64) (ImportEnqueued, error) {
	ns, err := authn.Namespace(ctx, kb)
	if err != nil {
		return ImportEnqueued{}, err
	}
	if err := authn.RequireEveryDocument(ctx, "an import"); err != nil {
		return ImportEnqueued{}, err
	}
	if length > a.MaxBytes {
		return ImportEnqueued{}, a.tooLarge()
	}
	id := jobs.NewJobID()
	path, sum, err := a.store(id, body)
	if err != nil {
		return ImportEnqueued{}, err
	}
	from := sum.Header.KBName
	err = a.Queue.EnqueueImport(ctx, id, jobs.ImportPayload{Namespace: ns, ArchivePath: path, FromKBName: from, CreatedAt: time.Now().UTC()})
	if err != nil {
		_ = os.Remove(path)
		return ImportEnqueued{}, ragd.Unavailable("redis", err)
	}
	a.Log.InfoContext(ctx, "import job enqueued", "job_id", id, "kb_name", ns, "from_kb_name", from, "documents", sum.Trailer.Documents,
		"chunks", sum.Trailer.Chunks)
	return ImportEnqueued{JobID: id, Status: ragd.JobQueued, KBName: ns, FromKBName: from,
		Documents: sum.Trailer.Documents, Chunks: sum.Trailer.Chunks, Images: sum.Trailer.Images}, nil
}

// store writes body to <Dir>/<id>.ragd.jsonl.gz while validating it, and
// removes the file unless the archive is whole and loadable here.
func (a *Archiver) store(id string, body io.Reader) (_ string, sum *archive.Summary, err error) {
	if err := os.MkdirAll(a.Dir, 0o700); err != nil {
		return "", nil, ragd.Unavailable("archive storage (data.dir)", err)
	}
	path := filepath.Join(a.Dir, id+".ragd.jsonl.gz")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, ragd.Unavailable("archive storage (data.dir)", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = ragd.Unavailable("archive storage (data.dir)", cerr)
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	limited := spool.Limit(body, a.MaxBytes)
	sum, err = archive.Validate(io.TeeReader(limited, spool.Disk(f)), archive.Admit(a.embedder()))
	var diskErr spool.DiskError
	var archiveErr *archive.Error
	switch {
	case errors.Is(err, spool.ErrTooLarge):
		return "", nil, a.tooLarge()
	case errors.As(err, &diskErr):
		return "", nil, ragd.Unavailable("archive storage (data.dir)", diskErr.Err)
	case errors.As(err, &archiveErr):
		return "", nil, archiveErr.Invalid()
	case ragd.KindOf(err) != ragd.KindInternal:
		return "", nil, err
	case err != nil:
		return "", nil, ragd.Invalid("archive", "value_error", "the archive could not be read: %v", err)
	}
	if err := f.Sync(); err != nil {
		return "", nil, ragd.Unavailable("archive storage (data.dir)", err)
	}
	return path, sum, nil
}

func (a *Archiver) tooLarge() error {
	return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("the archive exceeds import.max_bytes (%d bytes)", a.MaxBytes)}
}
