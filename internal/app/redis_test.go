package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd/internal/platform/config"
)

func sentinelRedis() config.Redis {
	return config.Redis{KeyPrefix: "x", Sentinel: config.Sentinel{MasterName: "m", Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"},
		Password: "p", SentinelPassword: "sp", WaitReplicas: 2, WaitTimeout: time.Second}}
}

func clusterRedis() config.Redis {
	return config.Redis{KeyPrefix: "x", Cluster: config.Cluster{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}, Password: "p", ReadOnlyReplicas: true}}
}

func TestAsynqRedisOnCluster(t *testing.T) {
	opt, err := AsynqRedis(clusterRedis())
	if c, ok := opt.(asynq.RedisClusterClientOpt); err != nil || !ok || len(c.Addrs) != 2 || c.Password != "p" {
		t.Fatalf("asynq option %#v, %v", opt, err)
	}
}

func TestAsynqRedisFollowsSentinel(t *testing.T) {
	opt, err := AsynqRedis(sentinelRedis())
	f, ok := opt.(asynq.RedisFailoverClientOpt)
	if err != nil || !ok || f.MasterName != "m" || len(f.SentinelAddrs) != 2 || f.Password != "p" || f.SentinelPassword != "sp" {
		t.Fatalf("asynq option %#v, %v", opt, err)
	}
	if opt, err := AsynqRedis(config.Redis{URL: "redis://127.0.0.1:7/0"}); err != nil {
		t.Fatal(err)
	} else if _, ok := opt.(asynq.RedisClientOpt); !ok {
		t.Fatalf("url option %#v", opt)
	}
}

// The wait for a replica is on with sentinels or a cluster only.
func TestQueueOptionsWaitWithSentinelOrCluster(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := config.Default()
	if o := queueOptions(cfg, log); o.WaitReplicas != 0 || o.Unreplicated != nil {
		t.Fatalf("url: %+v", o)
	}
	cfg.Redis = sentinelRedis()
	if o := queueOptions(cfg, log); o.WaitReplicas != 2 || o.WaitTimeout != time.Second || o.Unreplicated == nil || o.RiskJobLoss {
		t.Fatalf("sentinel: %+v", o)
	}
	cfg.Redis.Sentinel.RiskJobLoss = true
	if o := queueOptions(cfg, log); !o.RiskJobLoss {
		t.Fatalf("sentinel with risk_job_loss: %+v", o)
	}
	cfg.Redis = clusterRedis()
	cfg.Redis.Cluster.WaitReplicas, cfg.Redis.Cluster.WaitTimeout = 1, 2*time.Second
	cfg.Redis.Cluster.RiskJobLoss = true
	if o := queueOptions(cfg, log); o.WaitReplicas != 1 || o.WaitTimeout != 2*time.Second || o.Unreplicated == nil || !o.RiskJobLoss {
		t.Fatalf("cluster: %+v", o)
	}
}

// No sentinel answers: ragd refuses to start, naming the master and the
// sentinels, instead of hanging.
func TestNewFailsNamingTheSentinels(t *testing.T) {
	cfg := config.Default()
	cfg.Redis = sentinelRedis()
	done := make(chan error, 1)
	go func() {
		_, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), `primary "m" via sentinels 127.0.0.1:1,127.0.0.1:2`) {
			t.Fatalf("error = %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("New did not return within 60 s with no sentinel answering")
	}
}
