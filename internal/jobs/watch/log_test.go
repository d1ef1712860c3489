package watch_test

import (
	"context"
	"log/slog"
)

// handlerFunc is a slog handler that passes each record's message to f.
type handlerFunc func(msg string)

func (h handlerFunc) Enabled(context.Context, slog.Level) bool { return true }

func (h handlerFunc) Handle(_ context.Context, r slog.Record) error {
	h(r.Message)
	return nil
}

func (h handlerFunc) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h handlerFunc) WithGroup(string) slog.Handler { return h }
