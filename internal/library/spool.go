package library

import (
	"errors"
	"io"
)

// The pieces uploads and imports share to store a request body on disk
// within a bound, telling the client's faults from the disk's.

// errTooLarge is a body over its bound.
var errTooLarge = errors.New("over the limit")

// limitedReader fails with errTooLarge once more than left bytes are read;
// it never reads more than left+1.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// diskError marks a failure to write what is stored, so it is not taken
// for a fault of the body (a 503, not a 422).
type diskError struct{ error }

// diskWriter marks its write errors as diskErrors.
type diskWriter struct{ w io.Writer }

func (d diskWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if err != nil {
		return n, diskError{err}
	}
	return n, nil
}
