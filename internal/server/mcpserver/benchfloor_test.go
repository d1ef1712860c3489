package mcpserver_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/ragdproc"
)

// floorSpecEnv names the file that makes this test binary the benchmark's
// floor (TestMCPBenchFloor) rather than a test run.
const floorSpecEnv = "RAGD_MCP_BENCH_FLOOR_SPEC"

// floorSpec is what the floor serves: ragd's tool, as clients list it,
// answering always with the result ragd gave.
type floorSpec struct {
	Addr string
	Tool *sdk.Tool
	// Text and Structured are the result's text content and structured
	// content, the bytes ragd sent.
	Text       string
	Structured json.RawMessage
}

// captureRetrieve is core_retrieve_text as ragd lists it and the result of
// one call with benchArgs.
func captureRetrieve(b *testing.B, cs *sdk.ClientSession) floorSpec {
	var spec floorSpec
	for t, err := range cs.Tools(b.Context(), nil) {
		if err != nil {
			b.Fatal(err)
		}
		if t.Name == "core_retrieve_text" {
			spec.Tool = t
		}
	}
	res, err := cs.CallTool(b.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: benchArgs})
	if err != nil || spec.Tool == nil || res.IsError || len(res.Content) != 1 {
		b.Fatalf("capture: tool %v, result %+v, %v", spec.Tool, res, err)
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		b.Fatalf("capture: content %T", res.Content[0])
	}
	spec.Text = text.Text
	// ragd's structured content is its text content's JSON, byte for byte.
	if spec.Structured = json.RawMessage(text.Text); !json.Valid(spec.Structured) {
		if spec.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			b.Fatal(err)
		}
	}
	return spec
}

// startFloor runs this test binary as the floor serving spec and returns
// its MCP endpoint.
func startFloor(b *testing.B, spec floorSpec) string {
	addr, err := ragdproc.FreeAddr()
	if err != nil {
		b.Fatal(err)
	}
	spec.Addr = addr
	dir := b.TempDir()
	path := filepath.Join(dir, "floor.json")
	raw, err := json.Marshal(spec)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "floor.log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMCPBenchFloor$")
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), floorSpecEnv+"="+path), log, log
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); log.Close() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) {
			b.Fatalf("the floor does not listen on %s; see %s", addr, log.Name())
		}
	}
}

// TestMCPBenchFloor is BenchmarkMCPCachedRetrieve's floor, run by it as
// its own process: a bare go-sdk stateless streamable-HTTP server, as
// ragd's, with one tool answering without any work.
func TestMCPBenchFloor(t *testing.T) {
	path := os.Getenv(floorSpecEnv)
	if path == "" {
		t.Skip("BenchmarkMCPCachedRetrieve's floor; it runs this as its own process")
	}
	var spec floorSpec
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "floor", Version: "1"}, nil)
	s.AddTool(spec.Tool, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: spec.Text}}, StructuredContent: spec.Structured}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	t.Fatal(http.ListenAndServe(spec.Addr, mux))
}
