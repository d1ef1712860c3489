package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd/internal/jobs"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
)

// NewRedis is the one place ragd's Redis clients are built from config:
// a plain client for redis.url, go-redis's failover client, which asks
// the sentinels for the primary and follows a promotion, for
// redis.sentinel, or its cluster client, which routes each command to
// the shard of its keys' slot and follows a shard's failover, for
// redis.cluster. The queue, worker, registry and cache all share it.
func NewRedis(cfg config.Redis) (redis.UniversalClient, error) {
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

// AsynqRedis is the same connection as Asynq options, for the parts of
// Asynq that open their own (the /monitoring UI).
func AsynqRedis(cfg config.Redis) (asynq.RedisConnOpt, error) {
	if c := cfg.Cluster; c.Enabled() {
		return asynq.RedisClusterClientOpt{Addrs: c.Addrs, Password: c.Password}, nil
	}
	if s := cfg.Sentinel; s.Enabled() {
		return asynq.RedisFailoverClientOpt{MasterName: s.MasterName, SentinelAddrs: s.Addrs,
			Password: s.Password, SentinelPassword: s.SentinelPassword}, nil
	}
	opt, err := asynq.ParseRedisURI(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("redis.url: %w", err)
	}
	return opt, nil
}

// describeRedis names the Redis in logs and errors.
func describeRedis(cfg config.Redis) string {
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

// queueOptions: with sentinels or a cluster, a job is acknowledged once a
// replica holds it (wait_replicas), so a failover does not lose it; one
// no replica holds in time is refused, unless risk_job_loss.
func queueOptions(cfg config.Config, log *slog.Logger) jobs.Options {
	o := jobs.Options{Queue: cfg.Worker.Queue, Keys: keyspace.New(cfg.Redis.KeyPrefix), MaxRetries: cfg.Worker.MaxRetries,
		Timeout: cfg.Worker.TaskTimeout, Retention: cfg.Jobs.Retention}
	if c := cfg.Redis.Cluster; c.Enabled() {
		o.WaitReplicas, o.WaitTimeout, o.RiskJobLoss = c.WaitReplicas, c.WaitTimeout, c.RiskJobLoss
	} else if s := cfg.Redis.Sentinel; s.Enabled() {
		o.WaitReplicas, o.WaitTimeout, o.RiskJobLoss = s.WaitReplicas, s.WaitTimeout, s.RiskJobLoss
	}
	if o.WaitReplicas > 0 {
		wanted := o.WaitReplicas
		o.Unreplicated = func(jobID string, acked int64) {
			log.Warn("job accepted but not yet on a Redis replica (risk_job_loss): a failover now could lose it",
				"job_id", jobID, "replicas", acked, "wanted", wanted, "waited", o.WaitTimeout)
		}
	}
	return o
}

// redisLog sends go-redis's own messages (failed dials, a sentinel
// naming a new primary) to ragd's log rather than bare stderr.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(_ context.Context, format string, v ...any) {
	r.log.Warn("redis client: " + fmt.Sprintf(format, v...))
}

// migrateKeys moves an older ragd's keys to the current layout
// (keyspace.Migrate) before anything reads them, and says what it did.
func migrateKeys(ctx context.Context, rdb redis.UniversalClient, keys keyspace.Keys, log *slog.Logger) error {
	m, err := keyspace.Migrate(ctx, rdb, keys)
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	if m.Moved > 0 {
		log.Info("redis keys moved to the current layout", "prefix", keys.Prefix(), "moved", m.Moved)
	}
	if len(m.Kept) > 0 {
		log.Warn("redis keys of the old layout left in place: their new names were taken (was an older ragd still running?)",
			"prefix", keys.Prefix(), "keys", m.Kept[:min(len(m.Kept), 20)], "count", len(m.Kept))
	}
	return nil
}
