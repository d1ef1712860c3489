package testenv

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	moduleDirs   = map[string]string{}
	moduleDirsMu sync.Mutex
)

// PDFModule holds real PDFs and a DOCX of the same story, written elsewhere:
// the test documents ragd reads without committing them.
const PDFModule = "github.com/dslipak/pdf@v0.0.2"

// ModuleFile returns the path of rel inside the Go module modVersion
// ("path@version"), downloading it through the module proxy if needed. Tests
// use real third-party documents this way without copying them into the
// repository.
func ModuleFile(t testing.TB, modVersion, rel string) string {
	t.Helper()
	moduleDirsMu.Lock()
	defer moduleDirsMu.Unlock()
	dir, ok := moduleDirs[modVersion]
	if !ok {
		cmd := exec.Command("go", "mod", "download", "-json", modVersion)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		var info struct{ Dir, Error string }
		if jerr := json.Unmarshal(out, &info); jerr != nil || info.Dir == "" {
			t.Fatalf("go mod download %s: %v %s (output %q)", modVersion, err, info.Error, out)
		}
		dir = info.Dir
		moduleDirs[modVersion] = dir
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s in %s: %v", rel, modVersion, err)
	}
	return p
}

// GorootFile returns a file of the Go distribution that runs the tests, such
// as doc/go_mem.html: real documentation nobody here wrote.
func GorootFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(runtime.GOROOT(), rel)
	if _, err := os.Stat(p); err != nil {
		out, _ := exec.Command("go", "env", "GOROOT").Output()
		p = filepath.Join(strings.TrimSpace(string(out)), rel)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("GOROOT file %s: %v", rel, err)
		}
	}
	return p
}

// CopyFile copies src to dst (creating dst's directory), for tests that need
// real documents inside their own ingest root.
func CopyFile(t testing.TB, src, dst string) {
	t.Helper()
	WriteFile(t, dst, string(ReadFile(t, src)))
}

// WriteFile writes content to path (creating its directory) or fails the
// test, and returns path.
func WriteFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadFile reads the fixture file at p or fails the test.
func ReadFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
