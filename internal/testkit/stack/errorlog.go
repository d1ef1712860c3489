package stack

import (
	"log/slog"
	"testing"

	"ragd/internal/testkit/testenv"
)

// errorLogMax bounds the error records LoggerKeepingErrors keeps.
const errorLogMax = 16 << 10

// LoggerKeepingErrors is Logger, and also keeps ragd's first error records
// (up to 16 KiB) in the returned buffer, so that a test that fails can show
// why ragd refused, even without -v.
func LoggerKeepingErrors(t testing.TB) (*slog.Logger, *testenv.Buffer) {
	errs := &testenv.Buffer{Max: errorLogMax}
	return slog.New(slog.NewMultiHandler(Logger(t).Handler(),
		slog.NewTextHandler(errs, &slog.HandlerOptions{Level: slog.LevelError}))), errs
}
