//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
)

// withFileLock runs f holding an exclusive lock on path+".lock", so that
// ragd commands running at once take turns with the file.
func withFileLock(path string, f func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	l, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(l.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing unlocks as well
	return f()
}
