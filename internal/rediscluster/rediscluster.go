// Package rediscluster starts, for a test, a real Redis Cluster on
// loopback: three primaries and a replica of each (Debian's redis-server
// in cluster mode, joined by redis-cli --cluster create).
package rediscluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Nodes is how many servers a cluster runs: 3 primaries, 3 replicas.
const Nodes = 6

// DefaultFirstPort is the first of the cluster test's six ports; each
// node's cluster bus is its port + 10000, so both ranges stay below
// Linux's ephemeral ports and clear of the other tests'.
const DefaultFirstPort = 21001

// Cluster is a running Redis Cluster.
type Cluster struct {
	first   int
	dir     string
	servers map[int]*exec.Cmd
}

// Start starts the six servers on first … first+5, joins them into a
// cluster with one replica per primary and waits until it serves every
// slot. Everything is killed when the test ends.
func Start(t testing.TB, first int) *Cluster {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not on PATH: install Debian's redis-server (make test does)", bin)
		}
	}
	c := &Cluster{first: first, dir: t.TempDir(), servers: map[int]*exec.Cmd{}}
	t.Cleanup(c.stop)
	for i := range Nodes {
		c.start(t, first+i)
	}
	c.waitAnswers(t)
	args := []string{"--cluster", "create"}
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.waitOK(t)
	return c
}

// Addrs are the six nodes' host:port.
func (c *Cluster) Addrs() []string {
	var a []string
	for i := range Nodes {
		a = append(a, "127.0.0.1:"+strconv.Itoa(c.first+i))
	}
	return a
}

func (c *Cluster) start(t testing.TB, port int) {
	t.Helper()
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		_ = conn.Close()
		t.Fatalf("port %d on 127.0.0.1 is already in use (by another test run?)", port)
	}
	dir := filepath.Join(c.dir, strconv.Itoa(port))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--cluster-node-timeout", "2000",
		"--save", "", "--appendonly", "yes", "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server on :%d: %v", port, err)
	}
	_ = logf.Close()
	c.servers[port] = cmd
}

// waitAnswers waits until every server answers PING.
func (c *Cluster) waitAnswers(t testing.TB) {
	t.Helper()
	c.wait(t, "every node answering", func(ctx context.Context) error {
		for _, a := range c.Addrs() {
			rc := redis.NewClient(&redis.Options{Addr: a})
			err := rc.Ping(ctx).Err()
			_ = rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// waitOK waits until every node says the cluster is ok (all slots
// served) and every primary has its replica in sync.
func (c *Cluster) waitOK(t testing.TB) {
	t.Helper()
	c.wait(t, "cluster_state:ok on every node, and every primary's replica online", func(ctx context.Context) error {
		for _, a := range c.Addrs() {
			rc := redis.NewClient(&redis.Options{Addr: a})
			info, err := rc.ClusterInfo(ctx).Result()
			repl, rerr := rc.Info(ctx, "replication").Result()
			_ = rc.Close()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: %v %.80s", a, err, info)
			}
			if rerr != nil || strings.Contains(repl, "role:master") && !strings.Contains(repl, "state=online") {
				return fmt.Errorf("%s: replica not in sync (%v)", a, rerr)
			}
		}
		return nil
	})
}

func (c *Cluster) wait(t testing.TB, what string, ready func(context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ready(context.Background())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis cluster: no %s within 30 s: %v (logs under %s)", what, err, c.dir)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *Cluster) stop() {
	for _, cmd := range c.servers {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}
