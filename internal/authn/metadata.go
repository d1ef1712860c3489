package authn

import (
	"net/http"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where the protected-resource metadata is served (RFC 9728 §3).
const MetadataPath = "/.well-known/oauth-protected-resource"

// MetadataHandler serves the RFC 9728 protected-resource metadata document
// (resource, authorization_servers, bearer_methods_supported, scopes_supported).
// Mounted at MetadataPath and below it: a request for
// MetadataPath+"/mcp" describes the resource <base>/mcp, where MCP clients
// look first for the endpoint's own metadata (RFC 9728 §3.1).
func (a *Authenticator) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resource := a.baseURL(r)
		if rest, ok := strings.CutPrefix(r.URL.Path, MetadataPath); ok && strings.Trim(rest, "/") != "" {
			resource += "/" + strings.Trim(rest, "/")
		}
		meta := &oauthex.ProtectedResourceMetadata{
			Resource:               resource,
			AuthorizationServers:   a.authServers,
			BearerMethodsSupported: []string{"header"},
			ScopesSupported:        a.scopesSupported(),
		}
		sdkauth.ProtectedResourceMetadataHandler(meta).ServeHTTP(w, r)
	})
}

// scopesSupported are the scopes every token must carry (jwt), else those
// ragd's authorization server grants (oauth).
func (a *Authenticator) scopesSupported() []string {
	if len(a.scopes) > 0 {
		return a.scopes
	}
	return a.offered
}
