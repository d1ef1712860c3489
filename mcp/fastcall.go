package mcp

import (
	"bytes"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/jsonrpc"
)

// fastCalls answers the commonest stateless message, a plain tools/call,
// without the SDK's per-request session. In stateless mode the SDK treats
// each HTTP request as a session: it connects one (synthesizing its
// initialize state), reads the body twice more, decodes each message with
// a fresh 32 KiB buffer, runs the call on its own goroutine and closes the
// session again — on a cached search that was half of the call's time.
// Here the envelope ragd has already checked is dispatched
// straight to the tool's handler, the same handler the SDK would run, and
// the result is written as the SDK writes it (one SSE message event).
//
// Anything else — a batch, another method, _meta (a progress token needs a
// session to notify), an unknown tool, a protocol version or headers the
// SDK would judge — goes to the SDK unchanged, so its answers stay the
// protocol's; TestFastCallsAnswerAsTheSDK compares the two byte for byte.
type fastCalls struct {
	handlers map[string]sdk.ToolHandler
	served   atomic.Int64 // calls answered here; tests read it
}

// toolSet is the SDK server as the tools register on it, keeping each
// tool's handler for fastCalls.
type toolSet struct {
	*sdk.Server
	fast *fastCalls
}

// AddTool registers t on the SDK server and keeps its handler.
func (s toolSet) AddTool(t *sdk.Tool, h sdk.ToolHandler) {
	s.Server.AddTool(t, h)
	s.fast.handlers[t.Name] = h
}

// fastVersions are the protocol versions whose stateless tools/call the
// SDK answers with one SSE event and no session state; a newer one (and
// its per-request semantics) is the SDK's to handle.
var fastVersions = map[string]bool{"": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// callParams are the only params a fast call may carry.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// serve answers env if it is a plain tools/call of a known tool and
// reports whether it did.
func (f *fastCalls) serve(w http.ResponseWriter, r *http.Request, env *jsonrpc.Envelope) bool {
	if env.Method != "tools/call" || env.ID == nil || !fastRequest(r) {
		return false
	}
	var p callParams
	dec := json.NewDecoder(bytes.NewReader(env.Params))
	dec.DisallowUnknownFields() // _meta and anything new go to the SDK
	if env.Params == nil || dec.Decode(&p) != nil {
		return false
	}
	h, ok := f.handlers[p.Name]
	if !ok {
		return false
	}
	req := &sdk.CallToolRequest{
		Params: &sdk.CallToolParamsRaw{Name: p.Name, Arguments: p.Arguments},
		Extra:  &sdk.RequestExtra{TokenInfo: sdkauth.TokenInfoFromContext(r.Context()), Header: r.Header},
	}
	res, err := h(r.Context(), req)
	var msg []byte
	if err == nil {
		if res.Content == nil {
			res.Content = []sdk.Content{} // as the SDK: never "null"
		}
		msg, err = json.Marshal(rpcResult{JSONRPC: "2.0", ID: env.ID, Result: res})
	}
	if err != nil {
		msg, _ = json.Marshal(rpcFailure{JSONRPC: "2.0", ID: env.ID,
			Error: rpcError{Code: jsonrpc.InternalError, Message: err.Error()}})
	}
	f.served.Add(1)
	h2 := w.Header()
	h2.Set("Cache-Control", "no-cache, no-transform")
	h2.Set("Content-Type", "text/event-stream")
	h2.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 0, len("event: message\ndata: \n\n")+len(msg))
	buf = append(append(append(buf, "event: message\ndata: "...), msg...), "\n\n"...)
	_, _ = w.Write(buf)
	return true
}

// fastRequest holds the transport checks the SDK makes before a stateless
// call; a request that fails any of them goes to the SDK, which answers it
// with the SDK's own error.
func fastRequest(r *http.Request) bool {
	if r.Header.Get("Mcp-Session-Id") != "" || !fastVersions[r.Header.Get("MCP-Protocol-Version")] {
		return false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		return false
	}
	// The SDK refuses a non-loopback Host on a loopback listener (DNS
	// rebinding); leave that judgement to it.
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil && loopback(a.String()) && !loopback(r.Host) {
		return false
	}
	return true
}

// acceptsBoth: Accept names JSON and an event stream, as the SDK requires.
func acceptsBoth(values []string) bool {
	var js, sse bool
	for _, v := range values {
		for _, tok := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(tok, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				js = true
			case "text/event-stream", "text/*":
				sse = true
			case "*/*":
				js, sse = true, true
			}
		}
	}
	return js && sse
}

func loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// The JSON-RPC response shapes, in the field order the SDK writes.
type rpcResult struct {
	JSONRPC string              `json:"jsonrpc"`
	ID      json.RawMessage     `json:"id"`
	Result  *sdk.CallToolResult `json:"result"`
}

type rpcFailure struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
