// Package rediscluster starts, for a test, a real Redis Cluster on
// loopback: three primaries and a replica of each (Debian's redis-server
// in cluster mode, joined by redis-cli --cluster create).
package rediscluster

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/testkit/testenv"
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
	dir := filepath.Join(c.dir, strconv.Itoa(port))
	c.servers[port] = testenv.StartServer(t, port, dir, "redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
		"--cluster-node-timeout", "2000", "--save", "", "--appendonly", "yes", "--daemonize", "no")
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

// PrimaryOf is the port of the primary serving key's hash slot now.
func (c *Cluster) PrimaryOf(ctx context.Context, key string) (int, error) {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.live()})
	defer cc.Close()
	node, err := cc.MasterForKey(ctx, key)
	if err != nil {
		return 0, err
	}
	_, port, err := net.SplitHostPort(node.Options().Addr)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(port)
}

// Kill SIGKILLs the server on port.
func (c *Cluster) Kill(t testing.TB, port int) {
	t.Helper()
	cmd := c.servers[port]
	if cmd == nil {
		t.Fatalf("no redis-server of the cluster on :%d", port)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill redis on :%d: %v", port, err)
	}
	_ = cmd.Wait()
	delete(c.servers, port)
}

// WaitPromoted waits until key's slot is served by a primary other than
// old and every live node says the cluster is ok, and returns its port.
func (c *Cluster) WaitPromoted(t testing.TB, key string, old int, within time.Duration) int {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		p, err := c.PrimaryOf(ctx, key)
		if err != nil || p == old || !c.allOK(ctx) {
			continue
		}
		return p
	}
	t.Fatalf("no replica was promoted for %s within %s of killing its primary on :%d", key, within, old)
	return 0
}

// Restart starts a killed server again on port: it rejoins the cluster
// from its nodes.conf, as a replica of the primary promoted meanwhile.
func (c *Cluster) Restart(t testing.TB, port int) {
	t.Helper()
	c.start(t, port)
}

// live are the addresses of the servers running.
func (c *Cluster) live() []string {
	var a []string
	for _, addr := range c.Addrs() {
		_, port, _ := net.SplitHostPort(addr)
		if p, _ := strconv.Atoi(port); c.servers[p] != nil {
			a = append(a, addr)
		}
	}
	return a
}

func (c *Cluster) allOK(ctx context.Context) bool {
	for _, a := range c.live() {
		rc := redis.NewClient(&redis.Options{Addr: a})
		info, err := rc.ClusterInfo(ctx).Result()
		_ = rc.Close()
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
	}
	return true
}
