package mcpserver

import (
	"mime"
	"net"
	"net/http"
	"strings"
)

// fastVersions are the protocol versions (MCP-Protocol-Version, "" when
// absent) whose stateless tools/call fastCalls answers. Up to 2025-11-25
// the SDK answers such a call with one SSE event and no session state;
// 2026-07-28 adds per-request _meta and headers (SEP-2575), checked here
// and in fastmeta.go as the SDK checks them. 2024-11-05 is the SDK's to
// handle; a version it does not support was refused before
// (unsupportedVersion).
var fastVersions = map[string]bool{"": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true, newProtocol: true}

// fastRequest holds the transport checks the SDK makes before a stateless
// call and returns the request's protocol version; a request that fails
// any of them goes to the SDK, which answers it with the SDK's own error.
func fastRequest(r *http.Request) (string, bool) {
	version := r.Header.Get("MCP-Protocol-Version")
	if !fastVersions[version] || r.Header.Get("Mcp-Session-Id") != "" || len(r.Header.Values("Last-Event-ID")) > 0 {
		return "", false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "", false
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		return "", false
	}
	// The SDK refuses a non-loopback Host on a loopback listener (DNS
	// rebinding); leave that judgement to it.
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil && loopback(a.String()) && !loopback(r.Host) {
		return "", false
	}
	return version, true
}

// standardHeaders reports whether a 2026-07-28 call names its method and
// tool in the headers the SDK requires (SEP-2243), as its body does.
func standardHeaders(h http.Header, name string) bool {
	return h.Get("Mcp-Method") == "tools/call" && name != "" && h.Get("Mcp-Name") == name
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
