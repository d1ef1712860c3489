package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"
)

// Bound is what one fuzz input may cost: wall time, and heap (live plus
// not yet collected) above what was in use when it started. A zero Heap is
// not checked.
type Bound struct {
	Time time.Duration
	Heap uint64
}

// DefaultBound is the per-input bound of the fuzz targets: a parse that
// takes longer hangs, one that needs more heap balloons.
var DefaultBound = Bound{Time: 10 * time.Second, Heap: 512 << 20}

// Within runs f for one fuzz input on a goroutine of its own and fails t
// (from t's goroutine, as t.Fatal must be) when f panics, runs past b.Time
// or grows the heap past b.Heap. A hung f is left running: the fuzzer stops
// at the failure and keeps the input as a crasher.
func Within(t testing.TB, b Bound, f func()) {
	t.Helper()
	done := make(chan any, 1)
	base := heapBytes()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
				return
			}
			done <- nil
		}()
		f()
	}()
	deadline := time.NewTimer(b.Time)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			if r != nil {
				t.Fatal(r)
			}
			return
		case <-deadline.C:
			t.Fatalf("the input was not done within %s:\n%s", b.Time, allStacks())
		case <-tick.C:
			if used := heapBytes(); b.Heap > 0 && used > base && used-base > b.Heap {
				t.Fatalf("the input grew the heap by %d MiB, over the bound of %d MiB", (used-base)>>20, b.Heap>>20)
			}
		}
	}
}

var heapSamples = []string{"/memory/classes/heap/objects:bytes"}

// heapBytes is the heap in objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapSamples[0]}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// SeedFiles reads up to n files matching the glob patterns, in name order,
// skipping those over maxBytes (the fuzzer mutates every byte of a seed: a
// large one only slows it down). Fuzz targets seed from real documents on
// this machine this way, none copied into the repository.
func SeedFiles(t testing.TB, maxBytes int64, n int, patterns ...string) [][]byte {
	t.Helper()
	var paths []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatalf("seed pattern %s: %v", p, err)
		}
		paths = append(paths, m...)
	}
	slices.Sort(paths)
	var out [][]byte
	for _, p := range slices.Compact(paths) {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxBytes {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("seed %s: %v", p, err)
		}
		if out = append(out, b); len(out) == n {
			break
		}
	}
	return out
}

// ModCache is the Go module cache, where the seeds of third-party
// documents (READMEs, test files of the modules ragd uses) are.
func ModCache(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	dir, err := goEnv("GOMODCACHE")
	if err != nil || dir == "" {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	return dir
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}

// goSDKModule is the MCP SDK ragd uses; its conformance tests hold real
// JSON-RPC traffic of MCP clients and servers.
const goSDKModule = "github.com/modelcontextprotocol/go-sdk@v1.8.0"

// JSONRPCSeeds are the JSON-RPC messages of the MCP SDK's conformance
// tests (what clients send and servers answer), as written there, plus a
// batch of each file's client messages.
func JSONRPCSeeds(t testing.TB) [][]byte {
	t.Helper()
	dir := filepath.Dir(ModuleFile(t, goSDKModule, "mcp/testdata/conformance/server/tools.txtar"))
	var out [][]byte
	for _, file := range SeedFiles(t, 1<<20, 50, filepath.Join(dir, "*.txtar")) {
		var batch []json.RawMessage
		for _, section := range strings.Split(string(file), "\n-- ")[1:] {
			name, body, _ := strings.Cut(section, "\n")
			if name != "client --" && name != "server --" {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(body))
			for {
				var m json.RawMessage
				if dec.Decode(&m) != nil {
					break
				}
				out = append(out, m)
				if name == "client --" {
					batch = append(batch, m)
				}
			}
		}
		if b, err := json.Marshal(batch); err == nil && len(batch) > 0 {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no JSON-RPC messages in %s", dir)
	}
	return out
}
