package authn

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originPolicy guards against DNS rebinding and cross-site requests from
// browsers: a foreign web page must not reach a server on this machine (or
// use an ambient token) just because the browser can route to it. Only the
// server's own origin and the configured ones are accepted, exactly: a page
// on another port of the same machine is as foreign as any other site.
type originPolicy struct {
	origins map[string]bool // normalized scheme://host:port
	hosts   map[string]bool // host names of the allowed origins
}

func newOriginPolicy(allowed []string) (*originPolicy, error) {
	p := &originPolicy{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, a := range allowed {
		u, ok := parseOrigin(strings.TrimSuffix(a, "/"))
		if !ok {
			return nil, fmt.Errorf("auth: allowed origin %q is not of the form scheme://host[:port]", a)
		}
		p.origins[u.String()] = true
		p.hosts[u.Hostname()] = true
	}
	return p, nil
}

// check returns the detail of a 403, or "" when the request may proceed.
// Requests without Origin (curl, SDK clients) pass the Origin rule.
func (p *originPolicy) check(r *http.Request) string {
	// A rebinding page's requests carry its own host name, so on a
	// loopback connection the Host must be a loopback name; otherwise the
	// page would pass the same-origin rule below.
	if onLoopback(r) {
		if h := hostname(r.Host); !isLoopbackName(h) && !p.hosts[h] {
			return fmt.Sprintf("host %s is not allowed", r.Host)
		}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	// An unparsable origin, including "null" (sandboxed frames, file://
	// pages), is refused.
	if u, ok := parseOrigin(origin); ok && (u.String() == ownOrigin(r) || p.origins[u.String()]) {
		return ""
	}
	return fmt.Sprintf("origin %s is not allowed", origin)
}

// ownOrigin is the normalized origin the request was addressed to: its
// Host, with https only when the connection itself is TLS (behind a
// TLS-terminating proxy, list the public origin in AllowedOrigins). "" when
// the Host is not a valid host[:port].
func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u, ok := parseOrigin(scheme + "://" + r.Host)
	if !ok {
		return ""
	}
	return u.String()
}

// parseOrigin parses an http(s) origin and normalizes it to lower case with
// an explicit port, so "https://A.example" equals "https://a.example:443".
func parseOrigin(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, false
	}
	return &url.URL{Scheme: u.Scheme, Host: withDefaultPort(u.Host, u.Scheme)}, true
}

// withDefaultPort lower-cases host[:port] and adds the scheme's default
// port when none is given.
func withDefaultPort(hostport, scheme string) string {
	hostport = strings.ToLower(hostport)
	if _, _, err := net.SplitHostPort(hostport); err == nil {
		return hostport
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(hostport, "[]"), port)
}

// hostname strips the port and IPv6 brackets from a Host header.
func hostname(hostport string) string {
	u := url.URL{Host: strings.ToLower(hostport)}
	return u.Hostname()
}

// isLoopbackName reports whether h is localhost or a loopback address.
func isLoopbackName(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// onLoopback reports whether the connection arrived on a loopback address,
// the case the MCP spec singles out for DNS-rebinding protection.
func onLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return false
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
