package library

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"ragd/internal/platform/spool"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
)

// Uploads keeps uploaded bytes in Dir (<data.dir>/uploads), each file named
// by the sha256 of its bytes: a job retried after the request still finds
// them, and uploads of the same bytes share one file. They are kept when a
// document is deleted, since another document may share them.
type Uploads struct {
	Dir string
	// MaxFileBytes bounds each file (ingest.max_file_bytes), MaxFiles the
	// files of one request (ingest.max_upload_files).
	MaxFileBytes int64
	MaxFiles     int
}

// formOverhead is the room a multipart request is allowed beyond its files'
// bytes: part headers, boundaries and the form fields.
const formOverhead = 1 << 20

// MaxRequestBytes bounds a whole upload request: every file at its limit,
// plus the form around them.
func (u *Uploads) MaxRequestBytes() int64 {
	return int64(max(u.MaxFiles, 1))*u.MaxFileBytes + formOverhead
}

// Spool holds the files of one upload while its request is read: each goes
// to a temporary file in the uploads directory, hashed as it is written,
// and is moved to its hash's name only when the upload is accepted. Close
// removes what was not moved, so a refused request leaves nothing behind.
type Spool struct {
	u     *Uploads
	files []SpooledFile
}

// SpooledFile is one file read into a spool.
type SpooledFile struct {
	Filename string
	Type     ragd.SourceType
	Hash     string // sha256 of the bytes, hex
	Size     int64
	tmp      string // "" once committed
}

// NewSpool starts an upload.
func (u *Uploads) NewSpool() *Spool { return &Spool{u: u} }

// NewSpool starts an upload into the service's uploads directory.
func (s *Service) NewSpool() *Spool { return s.Uploads.NewSpool() }

// Files are the files added so far, in order.
func (sp *Spool) Files() []SpooledFile { return sp.files }

// Add checks a file's name and type before reading any of it, then streams
// r into the spool, refusing (ragd.KindTooLarge) a file over MaxFileBytes as
// soon as it has read one byte more, or one file more than MaxFiles. An
// error reading r is returned wrapped, as r gave it.
func (sp *Spool) Add(filename string, r io.Reader) error {
	if sp.u == nil {
		return ragd.Unavailable("uploads", errors.New("no uploads directory is configured"))
	}
	name, typ, err := guard.UploadName(filename)
	if err != nil {
		return err
	}
	if len(sp.files) >= sp.u.MaxFiles {
		return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("more than %d files in one upload (ingest.max_upload_files)", sp.u.MaxFiles)}
	}
	for _, f := range sp.files {
		if f.Filename == name {
			return ragd.Invalid("file", "value_error", "file %s is given twice; each file name is one document", name)
		}
	}
	if err := os.MkdirAll(sp.u.Dir, 0o750); err != nil {
		return ragd.Unavailable("uploads directory", err)
	}
	tmp, err := os.CreateTemp(sp.u.Dir, ".upload-*")
	if err != nil {
		return ragd.Unavailable("uploads directory", err)
	}
	f := SpooledFile{Filename: name, Type: typ, tmp: tmp.Name()}
	h := newHasher()
	f.Size, err = copyAtMost(io.MultiWriter(tmp, h), r, sp.u.MaxFileBytes)
	if err == nil {
		err = syncClose(tmp)
	} else {
		_ = tmp.Close()
	}
	if err != nil {
		_ = os.Remove(f.tmp)
		if errors.Is(err, spool.ErrTooLarge) {
			return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("file %s is larger than ingest.max_file_bytes (%d bytes)", name, sp.u.MaxFileBytes)}
		}
		return err
	}
	f.Hash = h.sum()
	sp.files = append(sp.files, f)
	return nil
}

// copyAtMost copies r to w, failing with spool.ErrTooLarge once more than limit
// bytes were read; it never reads more than limit+1.
func copyAtMost(w io.Writer, r io.Reader, limit int64) (int64, error) {
	n, err := io.Copy(spool.Disk(w), spool.Limit(r, limit))
	var de spool.DiskError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &de):
		return n, ragd.Unavailable("uploads directory", de.Err)
	case errors.Is(err, spool.ErrTooLarge):
		return n, spool.ErrTooLarge
	case errors.As(err, &mbe):
		return n, mbe // the whole request is over its bound: 413
	case err != nil:
		return n, fmt.Errorf("read upload: %w", err)
	}
	return n, nil
}

func syncClose(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ragd.Unavailable("uploads directory", err)
	}
	return nil
}

// commit moves every spooled file to its hash's name. A file of the same
// bytes already there is replaced by an identical one, atomically, so a
// job reading it meanwhile reads the same bytes either way.
func (sp *Spool) commit() error {
	for i := range sp.files {
		f := &sp.files[i]
		if f.tmp == "" {
			continue
		}
		dst, err := ingest.UploadPath(sp.u.Dir, f.Hash)
		if err != nil {
			return err
		}
		if err := os.Rename(f.tmp, dst); err != nil {
			return ragd.Unavailable("uploads directory", err)
		}
		f.tmp = ""
	}
	return nil
}

// Close removes the spooled files not committed. It is safe to call more
// than once, and after a commit.
func (sp *Spool) Close() {
	for i := range sp.files {
		if f := &sp.files[i]; f.tmp != "" {
			_ = os.Remove(f.tmp)
			f.tmp = ""
		}
	}
}
