package testenv

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe to write from one goroutine (a logger, a
// child process's output) while a test reads it from another.
type Buffer struct {
	// Max, when above 0, bounds what the buffer keeps: writes past it are
	// dropped (and reported written).
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p, or as much of it as Max leaves room for.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Max <= 0 {
		return b.buf.Write(p)
	}
	if room := b.Max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
