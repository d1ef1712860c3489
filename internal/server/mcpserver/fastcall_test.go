package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/server/mcpserver"
	"ragd/internal/testkit/stack"
)

// newestVersion is the protocol whose calls carry their own _meta and
// headers (SEP-2575).
const newestVersion = "2026-07-28"

// fastAt are the protocol versions ("" for no header) whose plain calls
// fastCalls must answer itself; at the others the SDK answers.
var fastAt = map[string]bool{"": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true, newestVersion: true}

// TestFastCallsAnswerAsTheSDK sends the same requests to ragd's MCP handler,
// which answers plain stateless tool calls itself, and to the SDK alone, and
// requires the same status, headers and bytes — for results, tool errors,
// handler errors of every kind and the requests fastCalls must leave to
// the SDK — at every protocol version the SDK supports and without any,
// each with the headers and _meta its clients send; and checks that
// fastCalls did answer the plain ones itself where it should.
func TestFastCallsAnswerAsTheSDK(t *testing.T) {
	s := stack.Start(t, stack.Config(t), true)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"wait": true,
		"text": "The lighthouse keeper logs every passing ship in the harbour ledger, with its flag and tonnage."})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	addTestTools(s.MCP)
	fast, sdkOnly := s.MCP.HTTPHandler(), mcpserver.SDKOnlyHandler(s.MCP)
	versions := append(sdk.SupportedProtocolVersions(), "")
	if !slices.Contains(versions, newestVersion) {
		t.Fatalf("the SDK no longer supports %s: %v", newestVersion, versions)
	}
	for _, v := range versions {
		t.Run("version "+v, func(t *testing.T) {
			for _, c := range fastCases() {
				if c.only != nil && !c.only[v] {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					body, headers := c.request(v)
					before := mcpserver.FastCallsServed(s.MCP)
					got := send(fast, body, headers)
					served := mcpserver.FastCallsServed(s.MCP) - before
					want := send(sdkOnly, body, headers)
					if wantFast := c.fast && fastAt[v]; served != map[bool]int64{true: 1, false: 0}[wantFast] {
						t.Errorf("fast path answered %d calls, want fast=%v", served, wantFast)
					}
					gb, _ := io.ReadAll(got.Body)
					wb, _ := io.ReadAll(want.Body)
					if want.Code == http.StatusOK {
						wb = mcpserver.WithTasksAdvertised(s.MCP, body, v, wb)
					}
					if got.Code != want.Code || !bytes.Equal(gb, wb) {
						t.Fatalf("request %s\nfast path answered\n%d %s\nthe SDK\n%d %s", body, got.Code, gb, want.Code, wb)
					}
					if !reflect.DeepEqual(got.Header(), want.Header()) {
						t.Errorf("headers: fast %v, SDK %v", got.Header(), want.Header())
					}
					if testing.Verbose() {
						t.Logf("%d %s", want.Code, wb)
					}
				})
			}
		})
	}
}

// send posts body with headers (a "" value leaves the header out).
func send(h http.Handler, body []byte, headers map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	for k, v := range headers {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// fastCase is a request fastCalls must answer as the SDK does, itself
// (fast) or by leaving it to the SDK.
type fastCase struct {
	name string
	// id, method and params make the message; id nil is a notification.
	// From 2026-07-28 on a call's params get the client's _meta, unless
	// meta replaces it; extraMeta is added at every version.
	id        any
	method    string
	params    map[string]any
	meta      map[string]any
	extraMeta map[string]any
	// raw is the body as is, at every version.
	raw string
	// headers override the version's ("" removes one).
	headers map[string]string
	fast    bool
	// only, when set, are the versions the case runs at.
	only map[string]bool
}

// clientMeta is the _meta a go-sdk client sends with each call at version:
// its protocol version, info and default capabilities.
func clientMeta(version string) map[string]any {
	return map[string]any{sdk.MetaKeyProtocolVersion: version,
		sdk.MetaKeyClientInfo:         map[string]any{"name": "ragd-test", "version": "1"},
		sdk.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{"listChanged": true}}}
}

// request is the case's body and headers at version.
func (c fastCase) request(version string) ([]byte, map[string]string) {
	body := []byte(c.raw)
	if c.raw == "" {
		msg := map[string]any{"jsonrpc": "2.0", "method": c.method}
		if c.id != nil {
			msg["id"] = c.id
		}
		params := maps.Clone(c.params)
		meta := map[string]any{}
		if c.id != nil && version >= newestVersion {
			meta = clientMeta(version)
		}
		if c.meta != nil {
			meta = maps.Clone(c.meta)
		}
		maps.Copy(meta, c.extraMeta)
		if len(meta) > 0 || c.meta != nil || c.extraMeta != nil {
			if params == nil {
				params = map[string]any{}
			}
			params["_meta"] = meta
		}
		if params != nil {
			msg["params"] = params
		}
		body, _ = json.Marshal(msg)
	}
	headers := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": version}
	if version >= newestVersion {
		method, name := methodAndName(body)
		headers["Mcp-Method"], headers["Mcp-Name"] = method, name
	}
	maps.Copy(headers, c.headers)
	return body, headers
}

// methodAndName are a message's method and tool name, as a client puts
// them in headers from 2026-07-28 on; keys match exactly.
func methodAndName(body []byte) (string, string) {
	var msg map[string]json.RawMessage
	var method string
	var params map[string]json.RawMessage
	var name string
	_ = json.Unmarshal(body, &msg)
	_ = json.Unmarshal(msg["method"], &method)
	_ = json.Unmarshal(msg["params"], &params)
	if method == "tools/call" {
		_ = json.Unmarshal(params["name"], &name)
	}
	return method, name
}
