// Package sentinel starts, for a test, a real Redis primary, one replica
// and three Redis Sentinels on loopback, and lets the test kill the
// primary and wait for the sentinels to promote the replica.
package sentinel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/testkit/testenv"
)

// MasterName is the name the sentinels monitor the primary under.
const MasterName = "ragdtest"

// Ports are the loopback ports of one set.
type Ports struct {
	Primary, Replica int
	Sentinels        [3]int
}

// DefaultPorts are the failover test's own ports.
var DefaultPorts = Ports{Primary: 23379, Replica: 23380, Sentinels: [3]int{23381, 23382, 23383}}

// Set is a running primary, replica and three sentinels.
type Set struct {
	Ports   Ports
	dir     string
	servers map[int]*exec.Cmd // by port
}

// Start starts the set on ports and waits until the replica is in sync and
// every sentinel knows the replica and the other two sentinels. Everything
// is killed when the test ends. It fails the test at once when
// redis-server or redis-sentinel is missing.
func Start(t testing.TB, ports Ports) *Set {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not on PATH: install Debian's redis-server and redis-sentinel (make test does, scripts/lib.sh install_redis_sentinel)", bin)
		}
	}
	s := &Set{Ports: ports, dir: t.TempDir(), servers: map[int]*exec.Cmd{}}
	t.Cleanup(s.stop)
	s.startRedis(t, ports.Primary)
	s.startRedis(t, ports.Replica, "--replicaof", "127.0.0.1", strconv.Itoa(ports.Primary))
	for _, p := range ports.Sentinels {
		s.startSentinel(t, p)
	}
	s.waitReady(t)
	return s
}

// Addrs are the sentinels' host:port.
func (s *Set) Addrs() []string {
	var a []string
	for _, p := range s.Ports.Sentinels {
		a = append(a, "127.0.0.1:"+strconv.Itoa(p))
	}
	return a
}

// Primary is the port of the primary the sentinels report now.
func (s *Set) Primary(ctx context.Context) (int, error) {
	var lastErr error
	for _, a := range s.Addrs() {
		c := redis.NewSentinelClient(&redis.Options{Addr: a})
		addr, err := c.GetMasterAddrByName(ctx, MasterName).Result()
		_ = c.Close()
		if err == nil && len(addr) == 2 {
			return strconv.Atoi(addr[1])
		}
		lastErr = err
	}
	return 0, fmt.Errorf("no sentinel names a primary: %v", lastErr)
}

// KillPrimary SIGKILLs the current primary and returns its port.
func (s *Set) KillPrimary(t testing.TB) int {
	t.Helper()
	port, err := s.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.kill(t, port)
	return port
}

// KillReplica SIGKILLs the replica (the server that is not the current
// primary) and returns its port; the primary stays up, with no replica.
func (s *Set) KillReplica(t testing.TB) int {
	t.Helper()
	primary, err := s.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	port := s.Ports.Replica
	if primary == port {
		port = s.Ports.Primary
	}
	s.kill(t, port)
	return port
}

// kill SIGKILLs the server on port and waits for it to exit.
func (s *Set) kill(t testing.TB, port int) {
	t.Helper()
	cmd := s.servers[port]
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill redis on :%d: %v", port, err)
	}
	_ = cmd.Wait()
	delete(s.servers, port)
}

// WaitPromoted waits until the sentinels report a primary other than old
// and it answers as a primary.
func (s *Set) WaitPromoted(t testing.TB, old int, within time.Duration) int {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if p, err := s.Primary(ctx); err == nil && p != old && role(ctx, p) == "master" {
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the sentinels did not promote a replica within %s of killing the primary on :%d", within, old)
	return 0
}

// Restart starts a killed server again on port, as a replica of the
// current primary (the sentinels would demote it anyway).
func (s *Set) Restart(t testing.TB, port int) {
	t.Helper()
	p, err := s.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.startRedis(t, port, "--replicaof", "127.0.0.1", strconv.Itoa(p))
}

func (s *Set) startRedis(t testing.TB, port int, extra ...string) {
	t.Helper()
	dir := filepath.Join(s.dir, "redis-"+strconv.Itoa(port))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "yes", "--daemonize", "no"}, extra...)
	s.run(t, port, dir, "redis-server", args...)
}

func (s *Set) startSentinel(t testing.TB, port int) {
	t.Helper()
	dir := filepath.Join(s.dir, "sentinel-"+strconv.Itoa(port))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Low timeouts, so a killed primary is replaced within seconds.
	conf := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\ndaemonize no\n"+
		"sentinel monitor %s 127.0.0.1 %d 2\n"+
		"sentinel down-after-milliseconds %[3]s 1000\nsentinel failover-timeout %[3]s 3000\nsentinel parallel-syncs %[3]s 1\n",
		port, dir, MasterName, s.Ports.Primary)
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(t, port, dir, "redis-sentinel", path)
}

func (s *Set) run(t testing.TB, port int, dir, bin string, args ...string) {
	t.Helper()
	s.servers[port] = testenv.StartServer(t, port, dir, bin, args...)
}

func (s *Set) waitReady(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := s.ready(ctx)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis primary, replica and sentinels not ready within 30 s: %v (logs under %s)", err, s.dir)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ready: the replica is online at the primary, and every sentinel sees the
// replica and both other sentinels (else a failover has no quorum).
func (s *Set) ready(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.Ports.Primary)})
	info, err := c.Info(ctx, "replication").Result()
	_ = c.Close()
	if err != nil || !strings.Contains(info, "state=online") {
		return fmt.Errorf("replica not in sync (%v)", err)
	}
	for _, a := range s.Addrs() {
		sc := redis.NewSentinelClient(&redis.Options{Addr: a})
		reps, err1 := sc.Replicas(ctx, MasterName).Result()
		sens, err2 := sc.Sentinels(ctx, MasterName).Result()
		_ = sc.Close()
		if err1 != nil || err2 != nil || len(reps) < 1 || len(sens) < 2 {
			return fmt.Errorf("sentinel %s sees %d replicas, %d other sentinels (%v %v)", a, len(reps), len(sens), err1, err2)
		}
	}
	return nil
}

func (s *Set) stop() {
	for _, cmd := range s.servers {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// role is INFO replication's role of the server on port.
func role(ctx context.Context, port int) string {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1})
	defer func() { _ = c.Close() }()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "role:"); ok {
			return v
		}
	}
	return ""
}
