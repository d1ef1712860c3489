package mcpserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// The documented stdio snippet works whatever directory the host starts
// ragd in: from /, bin/ragd of a checkout takes the checkout's
// config.yaml, so its data dir (the model) and ingest roots are the
// checkout's, as `make run`'s are; a file there is indexed by that
// worker, and one outside is refused at request time, not failed in the
// worker. (From /, ragd looked for /data/models/glove-sif-100d.bin and
// exited; with RAGD_DATA_DIR set, its ingest root was /.)
func TestStdioFromAnyDirectory(t *testing.T) {
	t.Parallel()
	checkout := fakeCheckout(t)
	testenv.WriteFile(t, filepath.Join(checkout, "notes", "kestrel.md"), "# Kestrels\n\nThe kestrel hovers over meadows hunting voles.\n")
	outside := testenv.WriteFile(t, filepath.Join(t.TempDir(), "heron.md"), "# Herons\n\nThe grey heron waits at the water's edge.\n")
	cfg := stack.Config(t, checkout)
	stack.Start(t, cfg, true) // `make run`'s worker, started in the checkout

	cmd := exec.Command(filepath.Join(checkout, "bin", "ragd"), "mcp")
	cmd.Dir = "/"
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAGD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The snippet's two variables, and what keeps this test's data apart
	// from the other tests' on the shared services.
	cmd.Env = append(cmd.Env, "RAGD_REDIS_URL="+cfg.Redis.URL, "RAGD_WEAVIATE_URL="+cfg.Weaviate.URL,
		"RAGD_WEAVIATE_GRPC_ADDR="+cfg.Weaviate.GRPCAddr, "RAGD_REDIS_KEY_PREFIX="+cfg.Redis.KeyPrefix,
		"RAGD_WEAVIATE_COLLECTION="+cfg.Weaviate.Collection, "RAGD_WORKER_QUEUE="+cfg.Worker.Queue)
	var stderr testenv.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-stdio-anywhere", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio from /: %v\nstderr: %s", err, stderr.String())
	}
	defer cs.Close()

	res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": filepath.Join(checkout, "notes", "kestrel.md"), "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("core_ingest of a file in the checkout: %v %s\nstderr: %s", out, text(res), stderr.String())
	}
	res, out = call(t, cs, "core_ingest", map[string]any{"source_uri": outside})
	if !res.IsError || !strings.Contains(text(res), "outside the ingest roots") || out["job_id"] != nil {
		t.Fatalf("core_ingest of a file outside the checkout should be refused at once: %v %s", out, text(res))
	}
}

// fakeCheckout is a ragd checkout as `make run` leaves it: go.mod, the
// shipped config.yaml, bin/ragd built from this module and the model in
// data/models.
func fakeCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testenv.CopyFile(t, "../../../go.mod", filepath.Join(dir, "go.mod"))
	testenv.CopyFile(t, "../../../config.yaml", filepath.Join(dir, "config.yaml"))
	if err := os.MkdirAll(filepath.Join(dir, "data", "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testenv.GloVePath(t), filepath.Join(dir, "data", "models", "glove-sif-100d.bin")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "ragd"), "ragd/cmd/ragd").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	return dir
}
