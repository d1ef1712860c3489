package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/server/mcpserver"
)

// fastCases are TestFastCallsAnswerAsTheSDK's requests.
func fastCases() []fastCase {
	call := func(name string, args map[string]any) map[string]any {
		return map[string]any{"name": name, "arguments": args}
	}
	retrieve := call("core_retrieve_text", map[string]any{"query": "lighthouse keeper ledger", "top_k": 3})
	stats := call("core_stats", map[string]any{})
	newest := map[string]bool{newestVersion: true}
	pv, info, caps := sdk.MetaKeyProtocolVersion, sdk.MetaKeyClientInfo, sdk.MetaKeyClientCapabilities
	roots := map[string]any{"roots": map[string]any{"listChanged": true}}
	withMeta := func(extra map[string]any) map[string]any { // the client's _meta at the newest version, changed
		m := clientMeta(newestVersion)
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	return []fastCase{
		// Plain calls, answered by fastCalls.
		{name: "retrieve", id: 7, method: "tools/call", params: retrieve, fast: true},
		{name: "retrieve again (cached)", id: 7, method: "tools/call", params: retrieve, fast: true},
		{name: "string id", id: "a-1", method: "tools/call", params: stats, fast: true},
		{name: "string id with escapes", id: json.RawMessage(`"a\u0041<b&"`), method: "tools/call", params: stats, fast: true},
		{name: "fractional id", id: json.Number("7.5"), method: "tools/call", params: stats, fast: true},
		{name: "no arguments", id: 8, method: "tools/call", params: map[string]any{"name": "core_stats"}, fast: true},
		{name: "null arguments", id: 8, method: "tools/call", params: map[string]any{"name": "core_stats", "arguments": nil}, fast: true},
		{name: "list documents", id: 7, method: "tools/call", params: call("core_list_documents", map[string]any{}), fast: true},
		{name: "top_k 0 refused", id: 7, method: "tools/call", params: call("core_retrieve_text", map[string]any{"query": "x", "top_k": 0}), fast: true},
		{name: "wrong type", id: 7, method: "tools/call", params: call("core_retrieve_text", map[string]any{"query": 5}), fast: true},
		{name: "unknown job", id: 7, method: "tools/call", params: call("core_job_status", map[string]any{"job_id": "nope"}), fast: true},
		{name: "handler error", id: 7, method: "tools/call", params: call("test_fail", map[string]any{}), fast: true},
		{name: "handler invalid-params error", id: 7, method: "tools/call", params: call("test_invalid", map[string]any{}), fast: true},
		{name: "empty result", id: 7, method: "tools/call", params: call("test_empty", map[string]any{}), fast: true},
		{name: "result with _meta", id: 7, method: "tools/call", params: call("test_meta", map[string]any{}), fast: true},
		{name: "empty _meta", id: 7, method: "tools/call", params: stats, extraMeta: map[string]any{}, fast: true,
			only: map[string]bool{"": true, "2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}},
		// What the SDK must answer.
		{name: "unknown tool", id: 7, method: "tools/call", params: call("no_such_tool", map[string]any{})},
		{name: "progress token", id: 9, method: "tools/call", params: stats, extraMeta: map[string]any{"progressToken": "p"}},
		{name: "notification", method: "notifications/initialized"},
		{name: "tools/list", id: 3, method: "tools/list"},
		{name: "batch", raw: `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"core_stats","arguments":{}}}]`},
		{name: "null id", id: json.RawMessage("null"), method: "tools/call", params: stats},
		{name: "Name for name", id: 7, method: "tools/call", params: map[string]any{"Name": "core_stats", "arguments": map[string]any{}}},
		{name: "input responses", id: 7, method: "tools/call", params: map[string]any{"name": "core_stats", "arguments": map[string]any{},
			"inputResponses": map[string]any{}, "requestState": "s"}},
		{name: "result asks for input", id: 7, method: "tools/call", params: call("test_ask", map[string]any{})},
		{name: "argument bound to a header", id: 7, method: "tools/call", params: call("test_region", map[string]any{"region": "eu"}),
			headers: map[string]string{"Mcp-Param-Region": "eu"}},
		{name: "unsupported protocol version", id: 7, method: "tools/call", params: stats,
			headers: map[string]string{"MCP-Protocol-Version": "1999-01-01"}, only: map[string]bool{"": true}},
		{name: "Accept without event-stream", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Accept": "application/json"}},
		{name: "session id", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Mcp-Session-Id": "abc"}},
		{name: "Last-Event-ID", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Last-Event-ID": "x_1"}},
		{name: "2026-07-28 _meta under an older header", id: 7, method: "tools/call", params: stats,
			extraMeta: map[string]any{pv: newestVersion}, only: map[string]bool{"2025-11-25": true}},
		// 2026-07-28 (SEP-2575): _meta and headers.
		{name: "no clientInfo", id: 7, method: "tools/call", params: retrieve, meta: withMeta(map[string]any{info: nil}), fast: true, only: newest},
		{name: "more capabilities", id: 7, method: "tools/call", params: stats, only: newest, fast: true,
			meta: withMeta(map[string]any{caps: map[string]any{"roots": map[string]any{}, "experimental": map[string]any{"x": map[string]any{}}}})},
		{name: "missing _meta", raw: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"core_stats","arguments":{}}}`, only: newest},
		{name: "_meta without protocolVersion", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{pv: nil}), only: newest},
		{name: "_meta protocolVersion not the header's", id: 7, method: "tools/call", params: stats,
			meta: withMeta(map[string]any{pv: "2025-11-25"}), only: newest},
		{name: "_meta protocolVersion not a string", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{pv: 2026}), only: newest},
		{name: "unsupported newer version", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{pv: "2099-01-01"}),
			headers: map[string]string{"MCP-Protocol-Version": "2099-01-01"}, only: newest},
		{name: "no clientCapabilities", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{caps: nil}), only: newest},
		{name: "clientCapabilities not an object", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{caps: "all"}), only: newest},
		{name: "clientCapabilities with a bad field", id: 7, method: "tools/call", params: stats,
			meta: withMeta(map[string]any{caps: map[string]any{"roots": true}}), only: newest},
		{name: "clientInfo null", id: 7, method: "tools/call", params: stats, meta: map[string]any{pv: newestVersion, info: nil, caps: roots}, only: newest},
		{name: "clientInfo not an object", id: 7, method: "tools/call", params: stats, meta: withMeta(map[string]any{info: []any{"x"}}), only: newest},
		{name: "unknown _meta key", id: 7, method: "tools/call", params: stats, extraMeta: map[string]any{"com.example/trace": "t"}, only: newest},
		{name: "log level", id: 7, method: "tools/call", params: stats, extraMeta: map[string]any{"io.modelcontextprotocol/logLevel": "debug"}, only: newest},
		{name: "client offers sampling", id: 7, method: "tools/call", params: retrieve,
			meta: withMeta(map[string]any{caps: map[string]any{"sampling": map[string]any{}}}), only: newest},
		{name: "client offers elicitation", id: 7, method: "tools/call", params: stats,
			meta: withMeta(map[string]any{caps: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}), only: newest},
		{name: "no Mcp-Method", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Mcp-Method": ""}, only: newest},
		{name: "Mcp-Method not the body's", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Mcp-Method": "tools/list"}, only: newest},
		{name: "no Mcp-Name", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Mcp-Name": ""}, only: newest},
		{name: "Mcp-Name not the body's", id: 7, method: "tools/call", params: stats, headers: map[string]string{"Mcp-Name": "core_list_documents"}, only: newest},
		{name: "no MCP-Protocol-Version", id: 7, method: "tools/call", params: stats, headers: map[string]string{"MCP-Protocol-Version": ""}, only: newest},
	}
}

// addTestTools registers tools whose handlers answer as ragd's own rarely
// do: failures, bare results, a request for input, an argument bound to a
// header.
func addTestTools(m *mcpserver.Server) {
	object := map[string]any{"type": "object"}
	add := func(name string, h sdk.ToolHandler) {
		mcpserver.AddTool(m, &sdk.Tool{Name: name, InputSchema: object}, h)
	}
	add("test_fail", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return nil, errors.New("the store is <down> & out")
	})
	add("test_invalid", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return nil, &sdkjsonrpc.Error{Code: sdkjsonrpc.CodeInvalidParams, Message: "bad <arguments>"}
	})
	add("test_empty", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	})
	add("test_meta", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Meta: sdk.Meta{"kb_name": "docs"}, Content: []sdk.Content{&sdk.TextContent{Text: "<ok>"}}}, nil
	})
	add("test_ask", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"confirm": &sdk.ElicitParams{Message: "sure?",
			RequestedSchema: map[string]any{"type": "object"}}}}, nil
	})
	mcpserver.AddTool(m, &sdk.Tool{Name: "test_region", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "eu"}}}, nil
		})
}
