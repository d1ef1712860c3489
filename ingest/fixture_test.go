package ingest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	moduleDirs   = map[string]string{}
	moduleDirsMu sync.Mutex
)

// moduleFile returns the path of rel inside the Go module modVersion
// ("path@version"), downloading it into the module cache if needed. Tests
// use real third-party documents this way without copying them into the
// repository.
func moduleFile(t *testing.T, modVersion, rel string) string {
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

// goroot returns a file of the Go distribution that runs the tests.
func gorootFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(runtime.GOROOT(), rel)
	if _, err := os.Stat(p); err != nil {
		out, _ := exec.Command("go", "env", "GOROOT").Output()
		p = filepath.Join(string(trimNL(out)), rel)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("GOROOT file %s: %v", rel, err)
		}
	}
	return p
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

const pdfModule = "github.com/dslipak/pdf@v0.0.2"

func readFixture(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
