package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd/config"
)

func sentinelRedis() config.Redis {
	return config.Redis{KeyPrefix: "x", Sentinel: config.Sentinel{MasterName: "m", Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"},
		Password: "p", SentinelPassword: "sp", WaitReplicas: 2, WaitTimeout: time.Second}}
}

func TestNewRedisFromURLOrSentinel(t *testing.T) {
	if _, err := NewRedis(config.Redis{URL: "mysql://nope"}); err == nil || !strings.Contains(err.Error(), "redis.url") {
		t.Fatalf("bad url: %v", err)
	}
	c, err := NewRedis(config.Redis{URL: "redis://127.0.0.1:7/3"})
	if err != nil || c.Options().Addr != "127.0.0.1:7" || c.Options().DB != 3 {
		t.Fatalf("url client: %v %+v", err, c.Options())
	}
	_ = c.Close()
	c, err = NewRedis(sentinelRedis())
	if err != nil || c.Options().Password != "p" {
		t.Fatalf("failover client: %v", err)
	}
	_ = c.Close()
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

// The wait for a replica is on with sentinels only.
func TestQueueOptionsWaitWithSentinelOnly(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := config.Default()
	if o := queueOptions(cfg, log); o.WaitReplicas != 0 || o.Unreplicated != nil {
		t.Fatalf("url: %+v", o)
	}
	cfg.Redis = sentinelRedis()
	if o := queueOptions(cfg, log); o.WaitReplicas != 2 || o.WaitTimeout != time.Second || o.Unreplicated == nil {
		t.Fatalf("sentinel: %+v", o)
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
