package kv

import (
	"slices"
	"strings"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/telemetry"
)

// Instrument gives every command rdb runs under a traced request or job a
// span of its own (go-redis's redisotel): the command's name, never its
// arguments, which hold document text and job payloads. A new
// connection's handshake (HELLO, CLIENT SETINFO, AUTH) makes none: it is
// the dial's. Nothing is added when p is nil.
func Instrument(rdb redis.UniversalClient, p *telemetry.Provider) error {
	if p == nil {
		return nil
	}
	return redisotel.InstrumentTracing(rdb, redisotel.WithTracerProvider(p.LibraryTracing()),
		redisotel.WithDBStatement(false), redisotel.WithCallerEnabled(false),
		redisotel.WithCommandFilter(handshake),
		redisotel.WithCommandsFilter(func(cmds []redis.Cmder) bool { return slices.ContainsFunc(cmds, handshake) }))
}

// handshake reports whether cmd is part of a connection's set-up.
func handshake(cmd redis.Cmder) bool {
	switch strings.ToLower(cmd.Name()) {
	case "hello", "auth", "client":
		return true
	}
	return redisotel.DefaultCommandFilter(cmd)
}
