package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"ragd/internal/jobs"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/platform/telemetry"
)

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

// openRedis opens the Redis cfg names, traces it (tel), checks that it
// answers, and moves an older ragd's keys to the current layout
// (kv.Migrate) before anything reads them, saying what it did.
func openRedis(ctx context.Context, cfg config.Redis, keys keyspace.Keys, tel *telemetry.Provider, log *slog.Logger) (*kv.Store, error) {
	kv.LogTo(log)
	rdb, err := kv.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	st := kv.New(rdb)
	if err := kv.Instrument(rdb, tel); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := st.Ping(pingCtx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("redis (%s) does not answer: %w", kv.Describe(cfg), err)
	}
	m, err := kv.Migrate(ctx, rdb, keys)
	if err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("redis: %w", err)
	}
	if m.Moved > 0 {
		log.Info("redis keys moved to the current layout", "prefix", keys.Prefix(), "moved", m.Moved)
	}
	if len(m.Kept) > 0 {
		log.Warn("redis keys of the old layout left in place: their new names were taken (was an older ragd still running?)",
			"prefix", keys.Prefix(), "keys", m.Kept[:min(len(m.Kept), 20)], "count", len(m.Kept))
	}
	return st, nil
}
