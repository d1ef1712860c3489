package mcpserver

import (
	"context"
	"log/slog"
)

// sdkLogger is log for the SDK's own messages, from Warn up. At Info the
// SDK logs each session's connect and disconnect, and in stateless mode
// every HTTP request is a session: three lines per tool call, formatted on
// the hot path, saying nothing an operator needs. Its warnings
// and errors still reach ragd's log.
func sdkLogger(log *slog.Logger) *slog.Logger {
	return slog.New(minLevel{log.Handler(), slog.LevelWarn})
}

// minLevel passes records at or above min to h.
type minLevel struct {
	h   slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.h.Enabled(ctx, l)
}

func (m minLevel) Handle(ctx context.Context, r slog.Record) error { return m.h.Handle(ctx, r) }

func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler { return minLevel{m.h.WithAttrs(as), m.min} }

func (m minLevel) WithGroup(name string) slog.Handler { return minLevel{m.h.WithGroup(name), m.min} }
