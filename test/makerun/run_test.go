// Package makerun runs `make run` as a user does and stops it as a
// process manager would.
package makerun

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ragd/internal/testkit/testenv"
)

// ports are this test's, apart from the shared test services' and below
// Linux's ephemeral range: ragd, Redis, and Weaviate's HTTP, gRPC, raft,
// raft RPC, gossip and data ports.
var ports = map[string]int{"RAGD_HTTP_ADDR": 19800, "RAGD_REDIS_PORT": 19379, "RAGD_WEAVIATE_HTTP_PORT": 19080,
	"RAGD_WEAVIATE_GRPC_PORT": 19051, "RAGD_WEAVIATE_RAFT_PORT": 19300, "RAGD_WEAVIATE_RAFT_RPC_PORT": 19301,
	"RAGD_WEAVIATE_GOSSIP_PORT": 19946, "RAGD_WEAVIATE_DATA_PORT": 19947}

// A SIGTERM to the make process of `make run` stops ragd, Redis and
// Weaviate within seconds, frees their ports, and make reports no error
// (run.sh ran ragd in the foreground, so it never heard the signal and
// everything kept running).
func TestMakeRunStopsOnTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Redis, Weaviate and ragd through make")
	}
	for _, p := range ports {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), time.Second); err == nil {
			c.Close()
			t.Fatalf("port %d is taken", p)
		}
	}
	m := startMakeRun(t)
	m.waitHealth(t)
	procs := descendants(m.cmd.Process.Pid)
	t.Cleanup(func() {
		killAll(procs)
		select {
		case <-m.exited:
		default:
			_ = m.cmd.Process.Kill()
		}
	})
	if len(procs) < 4 { // run.sh, ragd, redis-server, weaviate-server
		t.Fatalf("make's processes: %v\n%s", procs, m.out)
	}

	start := time.Now()
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("make still runs 20 s after SIGTERM; processes left: %v\n%s", alive(procs), m.out)
	}
	if !stoppedCleanly(m.err) || strings.Contains(m.out.String(), "make: ***") {
		t.Errorf("make ended with %v:\n%s", m.err, m.out)
	}
	for time.Since(start) < 20*time.Second && (len(alive(procs)) > 0 || len(bound()) > 0) {
		time.Sleep(200 * time.Millisecond)
	}
	if left, taken := alive(procs), bound(); len(left) > 0 || len(taken) > 0 {
		t.Fatalf("20 s after SIGTERM: processes left %v, ports still bound %v\n%s", left, taken, m.out)
	}
	t.Logf("everything stopped %s after SIGTERM (make: %v)", time.Since(start).Round(time.Millisecond), m.err)
}

// makeRun is a running `make run`.
type makeRun struct {
	cmd    *exec.Cmd
	out    *testenv.Buffer
	exited chan struct{} // closed when make has exited, err then set
	err    error
}

// startMakeRun starts `make run` on this test's ports with its data in a
// directory of the test's (the model linked in from the test's).
func startMakeRun(t *testing.T) *makeRun {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testenv.GloVePath(t), filepath.Join(data, "models", "glove-sif-100d.bin")); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	m := &makeRun{cmd: exec.Command("make", "--no-print-directory", "-C", root, "run"), out: &testenv.Buffer{Max: 1 << 20},
		exited: make(chan struct{})}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAGD_") && !strings.HasPrefix(kv, "MAKE") {
			m.cmd.Env = append(m.cmd.Env, kv)
		}
	}
	m.cmd.Env = append(m.cmd.Env, "RAGD_DATA_DIR="+data, "RAGD_LOG_LEVEL=warn")
	for k, p := range ports {
		v := strconv.Itoa(p)
		if k == "RAGD_HTTP_ADDR" {
			v = "127.0.0.1:" + v
		}
		m.cmd.Env = append(m.cmd.Env, k+"="+v)
	}
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.err = m.cmd.Wait(); close(m.exited) }()
	return m
}

// waitHealth waits up to 5 minutes (a build, Weaviate's start) for
// ragd's /health.
func (m *makeRun) waitHealth(t *testing.T) {
	t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:%d/health", ports["RAGD_HTTP_ADDR"])
	client := &http.Client{Timeout: 3 * time.Second}
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-m.exited:
			t.Fatalf("make exited (%v) before ragd answered:\n%s", m.err, m.out)
		default:
		}
	}
	killAll(descendants(m.cmd.Process.Pid))
	_ = m.cmd.Process.Kill()
	<-m.exited
	t.Fatalf("ragd did not answer %s:\n%s", url, m.out)
}

// stoppedCleanly: make exited 0, or was ended by the SIGTERM itself after
// its recipe exited 0 (GNU make always re-raises a fatal signal on
// itself once its children have exited).
func stoppedCleanly(err error) bool {
	var ee *exec.ExitError
	if err == nil {
		return true
	}
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}

// proc is a process of make's tree: its pid and its command line, so that
// a pid reused meanwhile is not taken for it.
type proc struct {
	pid int
	cmd string
}

func (p proc) String() string { return fmt.Sprintf("%d %s", p.pid, p.cmd) }

func (p proc) running() bool {
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
	if err != nil || string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})) != p.cmd {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// descendants are the running processes under pid.
func descendants(pid int) []proc {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []proc
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", queue[0]))
		if p := (proc{queue[0], string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))}); p.running() {
			out = append(out, p)
		}
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

func alive(procs []proc) []proc {
	var out []proc
	for _, p := range procs {
		if p.running() {
			out = append(out, p)
		}
	}
	return out
}

// bound are this test's ports something still listens on.
func bound() []int {
	var out []int
	for _, p := range ports {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), time.Second); err == nil {
			c.Close()
			out = append(out, p)
		}
	}
	return out
}

// killAll kills what is left of the processes this test started.
func killAll(procs []proc) {
	for _, p := range alive(procs) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}
