package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ragd/internal/testkit/testenv"

	"github.com/creack/pty"
)

// binDir holds the ragd binary the tests build once and run.
var (
	binDir   string
	buildBin sync.Once
	binPath  string
	binErr   error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ragd-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ragdBinary builds cmd/ragd once for the package's tests.
func ragdBinary(t *testing.T) string {
	t.Helper()
	buildBin.Do(func() {
		binPath = filepath.Join(binDir, "ragd")
		out, err := exec.Command("go", "build", "-o", binPath, "ragd/cmd/ragd").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runTimeout bounds one run: a hung client fails the test instead of the suite.
const runTimeout = 3 * time.Minute

// cliEnv is the environment a run sees: the test's, without any RAGD_
// client settings of the developer's shell, plus extra.
func cliEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAGD_SERVER=") && !strings.HasPrefix(kv, "RAGD_TOKEN=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// run runs the binary against server with args, stdout a pipe.
func run(t *testing.T, server string, args ...string) result {
	t.Helper()
	return runEnv(t, cliEnv("RAGD_SERVER="+server), args...)
}

func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ragdBinary(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("ragd %v: %v", args, err)
	}
	return res
}

// runTTY runs the binary with stdout (and stderr) on a pseudo-terminal
// and returns all it wrote there.
func runTTY(t *testing.T, server string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ragdBinary(t), args...)
	cmd.Env = cliEnv("RAGD_SERVER="+server, "TERM=xterm")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	_, err = out.ReadFrom(ptmx)
	if err != nil && !errors.Is(err, syscall.EIO) { // EIO: the child closed the terminal
		t.Fatal(err)
	}
	res := result{stdout: out.String()}
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		res.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return res
}

// decode parses a run's stdout as its one JSON document.
func decode(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document\n%s", r)
	}
}

// oneLine checks that a failed run said why in exactly one line on stderr.
func oneLine(t *testing.T, r result, want string) {
	t.Helper()
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr is not one line saying %q\n%s", want, r)
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	return testenv.WriteFile(t, path, content)
}

// started is a run of the binary still going.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr *testenv.Buffer
	done           chan result
}

// start runs the binary in the background, stdout a pipe.
func start(t *testing.T, server string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(ragdBinary(t), args...)
	cmd.Env = cliEnv("RAGD_SERVER=" + server)
	st := &started{cmd: cmd, stdout: &testenv.Buffer{}, stderr: &testenv.Buffer{}, done: make(chan result, 1)}
	cmd.Stdout, cmd.Stderr = st.stdout, st.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		err := cmd.Wait()
		res := result{stdout: st.stdout.String(), stderr: st.stderr.String()}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			res.code = exit.ExitCode()
		}
		st.done <- res
	}()
	return st
}

// wait returns the run's result once it has ended, failing the test if
// that takes longer than limit.
func (st *started) wait(t *testing.T, limit time.Duration) result {
	t.Helper()
	select {
	case r := <-st.done:
		return r
	case <-time.After(limit):
		t.Fatalf("still running after %s\nstdout:\n%s\nstderr:\n%s", limit, st.stdout, st.stderr)
		return result{}
	}
}

// waitFor polls until the run's stdout contains want, failing after limit.
func (st *started) waitFor(t *testing.T, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(st.stdout.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in stdout after %s\nstdout:\n%s\nstderr:\n%s", want, limit, st.stdout, st.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
