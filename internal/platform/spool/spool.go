// Package spool is what uploads and archive imports share to store a
// request body on disk within a bound, telling the client's faults from
// the disk's: a reader that fails with ErrTooLarge past its bound, and a
// writer whose failures are DiskErrors.
package spool

import (
	"errors"
	"io"
)

// ErrTooLarge is a body over its bound.
var ErrTooLarge = errors.New("over the limit")

// Limit reads r and fails with ErrTooLarge once more than n bytes are
// read; it never reads more than n+1.
func Limit(r io.Reader, n int64) io.Reader { return &limited{r: r, left: n} }

type limited struct {
	r    io.Reader
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

// DiskError marks a failure to write what is stored, so it is not taken
// for a fault of the body (a 503, not a 422).
type DiskError struct{ Err error }

func (e DiskError) Error() string { return e.Err.Error() }

// Unwrap is the write's error.
func (e DiskError) Unwrap() error { return e.Err }

// Disk writes to w, its write errors marked as DiskErrors.
func Disk(w io.Writer) io.Writer { return disk{w: w} }

type disk struct{ w io.Writer }

func (d disk) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if err != nil {
		return n, DiskError{err}
	}
	return n, nil
}
