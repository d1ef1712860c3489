package kv

import (
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/config"
)

func sentinelRedis() config.Redis {
	return config.Redis{KeyPrefix: "x", Sentinel: config.Sentinel{MasterName: "m", Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"},
		Password: "p", SentinelPassword: "sp", WaitReplicas: 2, WaitTimeout: time.Second}}
}

func clusterRedis() config.Redis {
	return config.Redis{KeyPrefix: "x", Cluster: config.Cluster{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}, Password: "p", ReadOnlyReplicas: true}}
}

func TestNewClientFromURLOrSentinel(t *testing.T) {
	if _, err := NewClient(config.Redis{URL: "mysql://nope"}); err == nil || !strings.Contains(err.Error(), "redis.url") {
		t.Fatalf("bad url: %v", err)
	}
	u, err := NewClient(config.Redis{URL: "redis://127.0.0.1:7/3"})
	c, _ := u.(*redis.Client)
	if err != nil || c == nil || c.Options().Addr != "127.0.0.1:7" || c.Options().DB != 3 {
		t.Fatalf("url client: %v %T", err, u)
	}
	_ = c.Close()
	u, err = NewClient(sentinelRedis())
	if c, _ = u.(*redis.Client); err != nil || c == nil || c.Options().Password != "p" {
		t.Fatalf("failover client: %v %T", err, u)
	}
	_ = c.Close()
	u, err = NewClient(clusterRedis())
	cc, _ := u.(*redis.ClusterClient)
	if err != nil || cc == nil || strings.Join(cc.Options().Addrs, ",") != "127.0.0.1:1,127.0.0.1:2" || cc.Options().Password != "p" || !cc.Options().ReadOnly {
		t.Fatalf("cluster client: %v %T", err, u)
	}
	_ = cc.Close()
}

// A command and a transaction sent while no Redis listens wait for one
// that starts later; with a wait too short for it they fail with the dial
// error, and so does a command whose context ends first.
func TestFailoverWaitRidesOutNoPrimary(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is not on PATH: install Debian's redis-server (make test does)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	client := func(wait time.Duration) *redis.Client {
		// go-redis on its own: one dial, no retries, so a failure is at once
		c := redis.NewClient(&redis.Options{Addr: addr, DialerRetries: 1, MaxRetries: -1})
		c.AddHook(failoverWait{wait: wait})
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx := context.Background()
	if err := client(100 * time.Millisecond).Ping(ctx).Err(); !isFailoverError(err) {
		t.Fatalf("short wait, nothing listening: %v, want the dial error", err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := client(time.Minute).Ping(short).Err(); err == nil {
		t.Fatal("a ping whose context ended before any Redis listened succeeded")
	}

	c := client(30 * time.Second)
	done := make(chan error, 2)
	go func() { done <- c.Set(ctx, "k", "v", 0).Err() }()
	var incr *redis.IntCmd
	go func() {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			incr = p.Incr(ctx, "n")
			return nil
		})
		done <- err
	}()
	time.Sleep(700 * time.Millisecond) // both are waiting by now
	_, port, _ := net.SplitHostPort(addr)
	srv := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("a write or transaction sent before Redis started: %v", err)
		}
	}
	if incr.Val() != 1 {
		t.Fatalf("INCR in the transaction: %d", incr.Val())
	}
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("get: %q %v", v, err)
	}
}

// A restarted node loading its data, a former primary turned replica and a
// replica without its primary refuse a command without running it: the
// wait tries it again, as it does a failed dial; any other error ends it.
func TestFailoverWaitRetriesRefusals(t *testing.T) {
	for _, refusal := range []string{"LOADING Redis is loading the dataset in memory",
		"READONLY You can't write against a read only replica.", "MASTERDOWN Link with MASTER is down",
		"CLUSTERDOWN The cluster is down", "TRYAGAIN Multiple keys request during rehashing of slot",
		"MOVED 11958 127.0.0.1:21206", "ASK 11958 127.0.0.1:21206"} {
		tries := 0
		err := failoverWait{wait: 10 * time.Second}.retry(context.Background(), false, func() error {
			if tries++; tries < 3 {
				return errors.New(refusal)
			}
			return nil
		})
		if err != nil || tries != 3 {
			t.Errorf("%s: err %v after %d tries, want success on the third", refusal, err, tries)
		}
	}
	tries := 0
	err := failoverWait{wait: 10 * time.Second}.retry(context.Background(), true, func() error {
		tries++
		return errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	})
	if err == nil || tries != 1 {
		t.Errorf("WRONGTYPE: err %v after %d tries, want it at once", err, tries)
	}
}

// A connection lost under a command (its Redis killed) is tried again for
// reads, which may run twice, and not for writes, which may have run.
func TestFailoverWaitRetriesLostReads(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		cmds  []redis.Cmder
		retry bool
	}{
		{[]redis.Cmder{redis.NewStringCmd(ctx, "get", "k")}, true},
		{[]redis.Cmder{redis.NewStatusCmd(ctx, "multi"), redis.NewStringCmd(ctx, "get", "e"), redis.NewSliceCmd(ctx, "hmget", "h", "a"), redis.NewSliceCmd(ctx, "exec")}, true},
		{[]redis.Cmder{redis.NewIntCmd(ctx, "incr", "n")}, false},
		{[]redis.Cmder{redis.NewStatusCmd(ctx, "multi"), redis.NewStringCmd(ctx, "get", "e"), redis.NewIntCmd(ctx, "hset", "h", "a", "1"), redis.NewSliceCmd(ctx, "exec")}, false},
	} {
		for _, lost := range []error{io.EOF, &net.OpError{Op: "read", Err: syscall.ECONNRESET}} {
			tries := 0
			err := failoverWait{wait: 10 * time.Second}.retry(ctx, reads(tc.cmds...), func() error {
				if tries++; tries < 3 {
					return lost
				}
				return nil
			})
			if want := map[bool]int{true: 3, false: 1}[tc.retry]; tries != want || (err == nil) != tc.retry {
				t.Errorf("%v lost under %v: err %v after %d tries, want %d", lost, tc.cmds, err, tries, want)
			}
		}
	}
}
