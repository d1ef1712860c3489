package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium is the browser the web-console tests drive: RAGD_TEST_CHROMIUM,
// else chromium on the PATH (Debian's package, which `make deps` and
// `make test` install). Missing, the test fails as it does without Redis,
// rather than passing without having run; with -short it is skipped.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("RAGD_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if testing.Short() {
		t.Skip("chromium is not installed (-short): skipping a web-console test")
	}
	t.Fatal("chromium is not installed: run `make deps` (or `apt-get install chromium`); `make test` installs it")
	return ""
}
