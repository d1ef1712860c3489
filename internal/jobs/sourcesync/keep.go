package sourcesync

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"ragd"
	"ragd/internal/ingest"
)

// Keep writes r to the uploads directory dir under the sha256 of its
// bytes, returned (a temporary file renamed into place, so a reader never
// sees a part).
func Keep(dir string, r io.Reader) (string, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	tmp, err := os.CreateTemp(dir, ".source-*")
	if err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	defer os.Remove(tmp.Name())
	sum := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, sum), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	hash := hex.EncodeToString(sum.Sum(nil))
	dst, err := ingest.UploadPath(dir, hash)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	return hash, nil
}
