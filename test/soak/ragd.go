package soak

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Ragd is the ragd process under soak.
type Ragd struct {
	cmd     *exec.Cmd
	URL     string
	LogFile string
	exited  chan struct{}
}

// StartRagd runs `bin serve --worker` on addr against the test services
// the RAGD_TEST_* variables name (scripts/lib.sh start_test_stack), with
// its data and log in dir, and waits until /health answers 200.
func StartRagd(bin, addr, dir string) (*Ragd, error) {
	env, err := ragdEnv(addr, dir)
	if err != nil {
		return nil, err
	}
	logFile := filepath.Join(dir, "ragd.log")
	out, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--worker")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out // no config.yaml in dir: defaults + env
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	r := &Ragd{cmd: cmd, URL: "http://" + addr, LogFile: logFile, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); out.Close(); close(r.exited) }()
	if err := r.waitHealthy(2 * time.Minute); err != nil {
		r.Stop()
		return nil, fmt.Errorf("%w; last lines of %s:\n%s", err, logFile, r.LogTail(30))
	}
	return r, nil
}

// ragdEnv is the process environment: ours, without any RAGD_ setting
// but the ones the soak chooses.
func ragdEnv(addr, dir string) ([]string, error) {
	need := func(name string) (string, error) {
		if v := os.Getenv(name); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%s is not set: run the soak with `make soak`", name)
	}
	set := map[string]string{"RAGD_HTTP_ADDR": addr, "RAGD_DATA_DIR": filepath.Join(dir, "data"), "RAGD_INGEST_ROOTS": dir,
		"RAGD_LOG_LEVEL": "warn"}
	for setting, from := range map[string]string{"RAGD_REDIS_URL": "RAGD_TEST_REDIS_URL", "RAGD_WEAVIATE_URL": "RAGD_TEST_WEAVIATE_URL",
		"RAGD_WEAVIATE_GRPC_ADDR": "RAGD_TEST_WEAVIATE_GRPC_ADDR", "RAGD_EMBED_MODEL_PATH": "RAGD_TEST_GLOVE_PATH",
		"RAGD_SEARCH_WORDNET_DIR": "RAGD_TEST_WORDNET_DIR"} {
		v, err := need(from)
		if err != nil {
			return nil, err
		}
		set[setting] = v
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

func (r *Ragd) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-r.exited:
			return fmt.Errorf("ragd exited while starting (%v)", r.cmd.ProcessState)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("ragd did not answer /health with 200 within %s", limit)
}

// Pid is the process id, for /proc.
func (r *Ragd) Pid() int { return r.cmd.Process.Pid }

// Exited is closed when the process has ended.
func (r *Ragd) Exited() <-chan struct{} { return r.exited }

// Stop sends SIGTERM and waits up to 30 s, then kills it.
func (r *Ragd) Stop() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
}

// LogTail is the last n lines of ragd's log.
func (r *Ragd) LogTail(n int) string {
	b, _ := os.ReadFile(r.LogFile)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
