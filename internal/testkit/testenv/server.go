package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartServer starts bin with args as a server of the test on loopback
// port, its output in dir/log, after checking that nothing holds the port
// (another test run would). The caller stops it.
func StartServer(t testing.TB, port int, dir, bin string, args ...string) *exec.Cmd {
	t.Helper()
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		_ = c.Close()
		t.Fatalf("port %d on 127.0.0.1 is already in use (by another test run?)", port)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s on :%d: %v", bin, port, err)
	}
	_ = logf.Close()
	return cmd
}
