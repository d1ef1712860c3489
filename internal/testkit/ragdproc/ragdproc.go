// Package ragdproc runs ragd as its own process, as users run it, for the
// soak test and the benchmarks that measure ragd over the network: the
// binary built from this module, `ragd serve --worker`, against the test
// services the RAGD_TEST_* variables name (scripts/lib.sh
// start_test_stack); and the hop floor the benchmarks hold ragd against
// (StartHopFloor).
package ragdproc

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a running ragd.
type Process struct {
	cmd     *exec.Cmd
	URL     string
	LogFile string
	exited  chan struct{}
}

// Start runs `bin serve --worker` on addr with its data and log in dir and
// the settings in env (RAGD_* names; the test services' addresses are set
// already), and waits until /health answers 200.
func Start(bin, addr, dir string, env map[string]string) (*Process, error) {
	environ, err := processEnv(addr, dir, env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--worker")
	cmd.Dir, cmd.Env = dir, environ // no config.yaml in dir: defaults + env
	return run(cmd, addr, filepath.Join(dir, "ragd.log"))
}

// run starts cmd, its output going to logFile, and waits until it answers
// GET /health on addr with 200.
func run(cmd *exec.Cmd, addr, logFile string) (*Process, error) {
	out, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, URL: "http://" + addr, LogFile: logFile, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); out.Close(); close(p.exited) }()
	if err := p.waitHealthy(2 * time.Minute); err != nil {
		p.Stop()
		return nil, fmt.Errorf("%w; last lines of %s:\n%s", err, logFile, p.LogTail(30))
	}
	return p, nil
}

// processEnv is the process environment: ours, without any RAGD_ setting
// but the test services' and the ones given.
func processEnv(addr, dir string, extra map[string]string) ([]string, error) {
	set := map[string]string{"RAGD_HTTP_ADDR": addr, "RAGD_DATA_DIR": filepath.Join(dir, "data"), "RAGD_INGEST_ROOTS": dir,
		"RAGD_LOG_LEVEL": "warn"}
	for setting, from := range map[string]string{"RAGD_REDIS_URL": "RAGD_TEST_REDIS_URL", "RAGD_WEAVIATE_URL": "RAGD_TEST_WEAVIATE_URL",
		"RAGD_WEAVIATE_GRPC_ADDR": "RAGD_TEST_WEAVIATE_GRPC_ADDR", "RAGD_EMBED_MODEL_PATH": "RAGD_TEST_GLOVE_PATH",
		"RAGD_SEARCH_WORDNET_DIR": "RAGD_TEST_WORDNET_DIR"} {
		v := os.Getenv(from)
		if v == "" {
			return nil, fmt.Errorf("%s is not set: run with `make test`, `make bench` or `make soak`, which start the services", from)
		}
		set[setting] = v
	}
	for k, v := range extra {
		set[k] = v
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAGD_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env, nil
}

func (p *Process) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited while starting (%v)", filepath.Base(p.cmd.Path), p.cmd.ProcessState)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer /health with 200 within %s", filepath.Base(p.cmd.Path), limit)
}

// Pid is the process id, for /proc.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop sends SIGTERM and waits up to 30 s, then kills it.
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// LogTail is the last n lines of ragd's log.
func (p *Process) LogTail(n int) string {
	b, _ := os.ReadFile(p.LogFile)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Binary is the ragd binary to run: $RAGD_BIN when set (`make bench` and
// `make soak` build it once), else one built from this module, once per
// test process, into a directory named for the process (those of processes
// that have ended are removed first).
func Binary() (string, error) {
	if bin := os.Getenv("RAGD_BIN"); bin != "" {
		return bin, nil
	}
	return build("./cmd/ragd")
}

var (
	buildMu sync.Mutex
	builds  = map[string]builtBinary{}
)

// builtBinary is a package's binary built for this test process, or why
// it could not be.
type builtBinary struct {
	path string
	err  error
}

// build builds the main package pkg of this module, once per test process.
func build(pkg string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := builds[pkg]; ok {
		return b.path, b.err
	}
	b := builtBinary{}
	b.path, b.err = buildNow(pkg)
	builds[pkg] = b
	return b.path, b.err
}

func buildNow(pkg string) (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	removeEnded()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", binDirPrefix, os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

const binDirPrefix = "ragd-bin-"

// removeEnded removes the binaries built for test processes that have
// ended.
func removeEnded() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), binDirPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.RemoveAll(d)
		}
	}
}

// FreeAddr is a loopback address with a port free at the time of asking.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
