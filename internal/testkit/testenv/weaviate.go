package testenv

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Weaviate is a Weaviate server a test starts and stops itself, on its own
// ports and data dir, so stopping it disturbs no other test.
type Weaviate struct {
	URL, GRPCAddr string
	bin, dir      string
	env           []string
	cmd           *exec.Cmd
	exited        chan struct{}
}

// WeaviateBinary is the weaviate-server that `make test` installed.
func WeaviateBinary(t testing.TB) string { return need(t, "RAGD_TEST_WEAVIATE_BIN") }

// StartWeaviate starts a private Weaviate with the settings ragd's scripts
// use (scripts/lib.sh), and env's on top, and stops it when the test ends.
func StartWeaviate(t testing.TB, env ...string) *Weaviate {
	t.Helper()
	ports := freePorts(t, 6)
	w := &Weaviate{bin: WeaviateBinary(t), dir: t.TempDir(),
		URL: "http://127.0.0.1:" + ports[0], GRPCAddr: "127.0.0.1:" + ports[1]}
	w.env = append(os.Environ(),
		"PERSISTENCE_DATA_PATH="+w.dir, "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DEFAULT_VECTORIZER_MODULE=none", "ENABLE_MODULES=", "DISABLE_TELEMETRY=true",
		"CLUSTER_HOSTNAME=node1", "CLUSTER_ADVERTISE_ADDR=127.0.0.1", "CLUSTER_BIND_ADDR=127.0.0.1",
		"GRPC_PORT="+ports[1], "RAFT_PORT="+ports[2], "RAFT_INTERNAL_RPC_PORT="+ports[3],
		"CLUSTER_GOSSIP_BIND_PORT="+ports[4], "CLUSTER_DATA_BIND_PORT="+ports[5], "RAFT_BOOTSTRAP_EXPECT=1",
		"USE_INVERTED_SEARCHABLE=false", "LOG_LEVEL=warning", "PROMETHEUS_MONITORING_ENABLED=false",
		"GO_PROFILING_DISABLE=true", "DISABLE_LAZY_LOAD_SHARDS=true")
	w.env = append(w.env, env...)
	w.Start(t)
	t.Cleanup(func() { w.Stop(t) })
	return w
}

// Start (re)starts the server on the same ports and data, and waits until
// it is ready.
func (w *Weaviate) Start(t testing.TB) {
	t.Helper()
	w.launch(t)
	w.waitReady(t, 90*time.Second)
}

// launch starts the process without waiting for it.
func (w *Weaviate) launch(t testing.TB) {
	t.Helper()
	port := w.URL[len("http://127.0.0.1:"):]
	w.cmd = exec.Command(w.bin, "--host", "127.0.0.1", "--port", port, "--scheme", "http")
	w.cmd.Env = w.env
	logFile, err := os.OpenFile(filepath.Join(w.dir, "weaviate.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stdout, w.cmd.Stderr = logFile, logFile
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.exited = make(chan struct{})
	go func() { _ = w.cmd.Wait(); logFile.Close(); close(w.exited) }()
}

// waitReady waits until REST says ready and gRPC accepts connections.
func (w *Weaviate) waitReady(t testing.TB, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := http.Get(w.URL + "/v1/.well-known/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && grpcOpen(w.GRPCAddr) {
				return
			}
		}
		select {
		case <-w.exited:
			log, _ := os.ReadFile(filepath.Join(w.dir, "weaviate.log"))
			t.Fatalf("weaviate at %s exited during start-up:\n%s", w.URL, tail(log, 2000))
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatalf("weaviate at %s did not become ready within %s", w.URL, limit)
}

// Dir is the server's data directory; its log is weaviate.log there.
func (w *Weaviate) Dir() string { return w.dir }

// Kill stops the server with SIGKILL, as a crash would, and waits for it.
func (w *Weaviate) Kill(t testing.TB) {
	if w.cmd == nil || w.cmd.Process == nil {
		return
	}
	_ = w.cmd.Process.Kill()
	<-w.exited
}

// Stop stops the server (SIGTERM, then SIGKILL after 20 s) and waits for it.
func (w *Weaviate) Stop(t testing.TB) {
	if w.cmd == nil || w.cmd.Process == nil {
		return
	}
	select {
	case <-w.exited:
		return
	default:
	}
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(20 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
}

func grpcOpen(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func freePorts(t testing.TB, n int) []string {
	t.Helper()
	var ports []string
	var listeners []net.Listener
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	for _, l := range listeners {
		l.Close()
	}
	return ports
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
