package authn

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// writeDetail writes a FastAPI-style error body, the shape of every other
// ragd REST error.
func writeDetail(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}

// challenge answers 401/403 with an RFC 6750 WWW-Authenticate header whose
// resource_metadata (RFC 9728) lets MCP clients find the authorization
// server. errCode is "" when no token was sent (RFC 6750 §3.1). A 401 on an
// operator path also offers Basic, for browsers.
func (a *Authenticator) challenge(w http.ResponseWriter, r *http.Request, status int, errCode, detail string) {
	scope := strings.Join(a.scopes, " ")
	if a.issued != nil {
		scope = ScopeRead + " " + ScopeWrite // what a client asks by default
	}
	a.challengeScope(w, r, status, errCode, detail, scope)
}

// challengeScope is challenge naming scope, the scopes to request.
func (a *Authenticator) challengeScope(w http.ResponseWriter, r *http.Request, status int, errCode, detail, scope string) {
	params := []string{fmt.Sprintf("resource_metadata=%q", a.baseURL(r)+MetadataPath)}
	if errCode != "" {
		params = append(params, fmt.Sprintf("error=%q", errCode))
	}
	if scope != "" {
		// Tells the client which scopes to request (MCP scope selection).
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	if status == http.StatusUnauthorized && a.Operator(r.URL.Path) {
		// Add, not Set: a second line, so Bearer clients still see theirs.
		w.Header().Add("WWW-Authenticate", basicChallenge)
	}
	writeDetail(w, status, detail)
}

// baseURL is the configured resource URL or, failing that, one built from
// the request (plain http unless the connection itself is TLS).
func (a *Authenticator) baseURL(r *http.Request) string {
	if a.resourceURL != "" {
		return a.resourceURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
