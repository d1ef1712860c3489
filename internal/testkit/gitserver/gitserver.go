// Package gitserver starts real Git servers for tests — Debian's
// `git daemon` (git://), `git http-backend` behind Go's CGI handler
// (smart HTTP, and HTTPS with a certificate of its own) and `git
// upload-pack` behind an SSH server (ssh.go) — over repositories the
// test builds with git commands (Repo). Without git the test fails saying
// how to install it.
package gitserver

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Git is the git binary; a test fails without it.
func Git(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not installed: `apt-get install git` (make deps installs it)")
	}
	return p
}

// Repo is a repository with a work tree under a test's temporary
// directory, served from Root as Name.
type Repo struct {
	t    testing.TB
	Root string // the directory the servers serve
	Name string // the repository's directory under Root
}

// NewRepo makes an empty repository on branch main.
func NewRepo(t testing.TB, name string) *Repo {
	t.Helper()
	r := &Repo{t: t, Root: t.TempDir(), Name: name}
	r.Git("init", "-q", "-b", "main", r.Dir())
	r.Git("config", "user.email", "test@ragd.invalid")
	r.Git("config", "user.name", "ragd test")
	r.Git("config", "http.receivepack", "false")
	return r
}

// Dir is the repository's work tree.
func (r *Repo) Dir() string { return filepath.Join(r.Root, r.Name) }

// Git runs git in the repository and returns its output; a failure fails
// the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command(Git(r.t), args...)
	if args[0] != "init" {
		cmd.Dir = r.Dir()
	}
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return strings.TrimSpace(out.String())
}

// Write writes a file of the work tree (creating its directories).
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir(), filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Commit commits everything in the work tree and returns the commit.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Daemon serves the repo's Root with `git daemon` on a free loopback port
// until the test ends or stop is called, and returns the repository's
// git:// URL.
func Daemon(t testing.TB, r *Repo) (url string, stop func()) {
	t.Helper()
	port := freePort(t)
	// git-daemon itself, not `git daemon`, which would run it as a child
	// that killing git leaves serving.
	cmd := exec.Command(filepath.Join(execPath(t), "git-daemon"), "--reuseaddr", "--export-all", "--listen=127.0.0.1",
		fmt.Sprintf("--port=%d", port), "--base-path="+r.Root, r.Root)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("git daemon: %v", err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitListening(t, addr)
	return "git://" + addr + "/" + r.Name, stop
}

// HTTP serves the repo's Root over smart HTTP (`git http-backend` behind
// net/http/cgi) until the test ends, and returns the repository's URL.
func HTTP(t testing.TB, r *Repo) string {
	t.Helper()
	srv := httptest.NewServer(backend(t, r))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + r.Name
}

// HTTPS is HTTP over TLS, with a certificate of its own for 127.0.0.1:
// it returns the repository's URL and the certificate's PEM, which a
// client must be told to trust.
func HTTPS(t testing.TB, r *Repo) (url, caPEM string) {
	t.Helper()
	srv := httptest.NewTLSServer(backend(t, r))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv.URL + "/" + r.Name, string(ca)
}

// backend is `git http-backend` serving r's Root behind net/http/cgi.
func backend(t testing.TB, r *Repo) *cgi.Handler {
	return &cgi.Handler{Path: filepath.Join(execPath(t), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + r.Root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1"}}
}

// execPath is where git keeps its programs (git --exec-path).
func execPath(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(Git(t), "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// ClosedURL is a git:// URL on a loopback port nothing listens on.
func ClosedURL(t testing.TB) string {
	return fmt.Sprintf("git://127.0.0.1:%d/none", freePort(t))
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(t testing.TB, addr string) {
	t.Helper()
	for range 200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("git daemon did not listen on %s", addr)
}
