package telemetry

import (
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
)

// InstrumentRedis gives every command rdb runs under a traced request or
// job a span of its own (go-redis's redisotel): the command's name, never
// its arguments, which hold document text and job payloads. Nothing is
// added when p is nil.
func (p *Provider) InstrumentRedis(rdb redis.UniversalClient) error {
	if p == nil {
		return nil
	}
	return redisotel.InstrumentTracing(rdb, redisotel.WithTracerProvider(p.children),
		redisotel.WithDBStatement(false), redisotel.WithCallerEnabled(false))
}
