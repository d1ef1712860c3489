package authn

import (
	"path"
	"strings"
)

// Public reports whether a request path skips authentication (see
// Config.PublicPaths) — for GET, HEAD and OPTIONS requests only.
func (a *Authenticator) Public(p string) bool {
	// Match the cleaned path, so "/docs/../mcp" counts as "/mcp" for a
	// router that cleans paths before routing.
	return matchPath(a.public, cleanPath(p))
}

// cleanPath is p as a router that cleans paths would see it.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	return path.Clean(p)
}

// matchPath reports whether p matches one of patterns: exact, or a prefix
// pattern ending in "/*" that matches that path and everything below it.
func matchPath(patterns []string, p string) bool {
	for _, pat := range patterns {
		if prefix, ok := strings.CutSuffix(pat, "/*"); ok {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				return true
			}
		} else if p == pat {
			return true
		}
	}
	return false
}
