package stack

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// ErrorLog keeps the first errors ragd logged in a test, so that a test
// that sees a request fail can say why ragd failed it (without -v ragd's
// log is discarded, and a flaky failure's cause was lost with it).
type ErrorLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// errorLogMax bounds what ErrorLog keeps.
const errorLogMax = 16 << 10

// Write keeps p while the log is under errorLogMax.
func (l *ErrorLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < errorLogMax {
		l.buf.Write(p[:min(len(p), errorLogMax-l.buf.Len())])
	}
	return len(p), nil
}

// String is what was kept.
func (l *ErrorLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// LoggerKeepingErrors is Logger, and also keeps ragd's error records in the
// returned ErrorLog.
func LoggerKeepingErrors(t testing.TB) (*slog.Logger, *ErrorLog) {
	errs := &ErrorLog{}
	return slog.New(slog.NewMultiHandler(Logger(t).Handler(),
		slog.NewTextHandler(errs, &slog.HandlerOptions{Level: slog.LevelError}))), errs
}
