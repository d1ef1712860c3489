// Package testenv gives tests the real Redis and Weaviate that `make test`
// starts (scripts/test.sh exports their addresses). A test that needs them
// fails when they are missing, rather than passing without having run; with
// -short it is skipped instead.
package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

func need(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if testing.Short() {
			t.Skipf("%s not set (-short): skipping a test that needs the real services", name)
		}
		t.Fatalf("%s is not set: run the tests with `make test`, which starts Redis and Weaviate for them", name)
	}
	return v
}

// RedisURL is the test Redis, e.g. redis://127.0.0.1:26379/0.
func RedisURL(t testing.TB) string { return need(t, "RAGD_TEST_REDIS_URL") }

// WeaviateURL is the test Weaviate's REST endpoint.
func WeaviateURL(t testing.TB) string { return need(t, "RAGD_TEST_WEAVIATE_URL") }

// WeaviateGRPC is the test Weaviate's gRPC host:port.
func WeaviateGRPC(t testing.TB) string { return need(t, "RAGD_TEST_WEAVIATE_GRPC_ADDR") }

// GloVePath is the converted default embedder table.
func GloVePath(t testing.TB) string { return need(t, "RAGD_TEST_GLOVE_PATH") }

// WordNetDir is the WordNet database Debian's wordnet-base installs, e.g.
// /usr/share/wordnet.
func WordNetDir(t testing.TB) string { return need(t, "RAGD_TEST_WORDNET_DIR") }

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// Unique returns a name unique to this test run, starting with prefix and
// made of letters and digits only (valid as a Weaviate class or Redis prefix).
func Unique(t testing.TB, prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := nonAlnum.ReplaceAllString(t.Name(), "")
	if len(name) > 24 {
		name = name[:24]
	}
	return prefix + name + strings.ToUpper(hex.EncodeToString(b[:]))
}

// InMemory reports whether this run has no test services and is -short:
// then the tests that can run their services in memory (RedisOrMemory,
// stack.StartService) do, and the rest skip.
func InMemory() bool { return testing.Short() && os.Getenv("RAGD_TEST_REDIS_URL") == "" }

// Report logs a line of figures and, when RAGD_TEST_REPORT names a file
// (make test sets it), appends it there too, so that the figures of a
// passing test (which go test does not print) show at the run's end.
func Report(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	path := os.Getenv("RAGD_TEST_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("report: %v", err)
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "%s: %s\n", t.Name(), line)
}
