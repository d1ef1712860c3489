package mcpserver_test

import (
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/server/mcpserver"
	"ragd/internal/testkit/stack"
)

// TestFastCallsServeTheGoSDKClient calls core_retrieve_text with the go-sdk
// client, at its default protocol (2026-07-28) and at the older ones
// fastCalls serves, and requires that fastCalls answered each call itself
// — what clients send, not only what the equivalence test builds.
func TestFastCallsServeTheGoSDKClient(t *testing.T) {
	s := stack.Start(t, stack.Config(t), true)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"wait": true,
		"text": "The lighthouse keeper logs every passing ship in the harbour ledger, with its flag and tonnage."})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} { // "": the client's default
		t.Run("version "+version, func(t *testing.T) {
			client := sdk.NewClient(&sdk.Implementation{Name: "ragd-fast-test", Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp"},
				&sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if version == "" && cs.InitializeResult().ProtocolVersion != newestVersion {
				t.Errorf("the client's default protocol is %s, not %s: update fastVersions and this test", cs.InitializeResult().ProtocolVersion, newestVersion)
			}
			before := mcpserver.FastCallsServed(s.MCP)
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text",
				Arguments: map[string]any{"query": "lighthouse keeper ledger", "top_k": 3}})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			if out, _ := res.StructuredContent.(map[string]any); out["count"] != float64(1) {
				t.Errorf("result %v", res.StructuredContent)
			}
			if served := mcpserver.FastCallsServed(s.MCP) - before; served != 1 {
				t.Errorf("fastCalls answered %d of 1 calls at %s", served, cs.InitializeResult().ProtocolVersion)
			}
		})
	}
}
