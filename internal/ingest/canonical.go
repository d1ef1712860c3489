package ingest

import (
	"net"
	"net/url"
	"strings"
)

// CanonicalURL gives the form of u that identifies a document: scheme and
// host lowercased, the default port, fragment and any user info (a
// credential has no place in a stored source) dropped, an empty path
// written "/", path and query kept as they are.
func CanonicalURL(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (c.Scheme == "http" && port == "80") || (c.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		c.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		c.Host = "[" + host + "]"
	} else {
		c.Host = host
	}
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	if c.Path == "" && c.Opaque == "" {
		c.Path, c.RawPath = "/", ""
	}
	return c.String()
}
