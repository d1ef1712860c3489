package chaos

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is one ragd process (serve or worker) the test starts and kills.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// buildRagd builds cmd/ragd once into dir; the error carries go's output.
func buildRagd(dir string) (string, error) {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	bin := filepath.Join(dir, "ragd")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ragd")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/ragd: %v\n%s", err, out)
	}
	return bin, nil
}

// startRagd starts `ragd ARGS` on config, logging to dir/name.log; it is
// SIGTERMed (then SIGKILLed) when the test ends.
func startRagd(t *testing.T, bin, config, dir, name string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, log: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(append(os.Environ(), "RAGD_CONFIG="+config), env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); f.Close(); close(p.exited) }()
	t.Cleanup(func() { p.stop() })
	return p
}

// kill SIGKILLs the process, as a crash would, and waits for it.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

func (p *proc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		p.kill()
	}
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// tail is the end of the process's log, for a failure message.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// waitHealthy waits until the serve process at url answers /health 200.
func waitHealthy(t *testing.T, p *proc, url string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if !p.running() {
			t.Fatalf("%s exited during start-up:\n%s", p.name, p.tail())
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("%s at %s not healthy within 90 s:\n%s", p.name, url, p.tail())
}
