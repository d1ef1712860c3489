package kv

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/config"
)

// NewClient is the one place ragd's Redis clients are built from config:
// a plain client for redis.url, go-redis's failover client, which asks
// the sentinels for the primary and follows a promotion, for
// redis.sentinel, or its cluster client, which routes each command to
// the shard of its keys' slot and follows a shard's failover, for
// redis.cluster. The queue, worker, registry and cache all share it.
func NewClient(cfg config.Redis) (redis.UniversalClient, error) {
	if c := cfg.Cluster; c.Enabled() {
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs, Password: c.Password, ReadOnly: c.ReadOnlyReplicas})
		if c.FailoverWait > 0 {
			cc.AddHook(failoverWait{wait: c.FailoverWait})
		}
		return cc, nil
	}
	if s := cfg.Sentinel; s.Enabled() {
		c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.MasterName, SentinelAddrs: s.Addrs,
			Password: s.Password, SentinelPassword: s.SentinelPassword})
		if s.FailoverWait > 0 {
			c.AddHook(failoverWait{wait: s.FailoverWait})
		}
		return c, nil
	}
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("redis.url: %w", err)
	}
	return redis.NewClient(opts), nil
}

// Describe names the Redis in logs and errors.
func Describe(cfg config.Redis) string {
	if c := cfg.Cluster; c.Enabled() {
		return "cluster of " + strings.Join(c.Addrs, ",")
	}
	if s := cfg.Sentinel; s.Enabled() {
		return fmt.Sprintf("primary %q via sentinels %s", s.MasterName, strings.Join(s.Addrs, ","))
	}
	if opts, err := redis.ParseURL(cfg.URL); err == nil {
		return opts.Addr
	}
	return cfg.URL
}

// logTo sends go-redis's own messages (failed dials, a sentinel
// naming a new primary) to ragd's log rather than bare stderr.
type logTo struct{ log *slog.Logger }

func (r logTo) Printf(_ context.Context, format string, v ...any) {
	r.log.Warn("redis client: " + fmt.Sprintf(format, v...))
}

// LogTo sends go-redis's own log (failed dials, a sentinel naming a new
// primary) to log, for every client of the process.
func LogTo(log *slog.Logger) { redis.SetLogger(logTo{log}) }
