package auth

import (
	"path"
	"strings"
)

// Public reports whether a request path skips authentication (see
// Config.PublicPaths) — for GET, HEAD and OPTIONS requests only.
func (a *Authenticator) Public(p string) bool {
	if p == "" {
		p = "/"
	}
	// Match the cleaned path, so "/docs/../mcp" counts as "/mcp" for a
	// router that cleans paths before routing.
	p = path.Clean(p)
	for _, pat := range a.public {
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
