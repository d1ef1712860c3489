package authn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"ragd"
)

// The scopes ragd's authorization server grants (oauth mode), and what
// each allows a token it issued (Principal.Scoped); docs/SIGNIN.md.
const (
	// ScopeRead: GET, HEAD and OPTIONS, the read-only POSTs (ReadPosts)
	// and at /mcp every method but calls of tools that change state.
	ScopeRead = "read"
	// ScopeWrite: everything else that is not an operator's.
	ScopeWrite = "write"
	// ScopeOperator: the operator paths and what RequireOperator guards,
	// for a person whose grants make them an operator.
	ScopeOperator = "operator"
)

// ReadPosts are the REST paths whose POST only reads: the searches and
// the web-search JSON-RPC endpoint.
var ReadPosts = []string{"/", "/tools/rag_query", "/tools/rag_search"}

// mcpPath is where the MCP endpoint is mounted.
const mcpPath = "/mcp"

// maxPeekBytes bounds the part of an MCP request read to learn which tool
// it calls; a longer request needs scope write.
const maxPeekBytes = 64 << 10

// AuthorizationServer is ragd's own authorization server (package oauth)
// as the middleware needs it.
type AuthorizationServer interface {
	// Issuer is its issuer identifier, advertised in the metadata.
	Issuer() string
	// Verify returns the principal an access token it issued stands for.
	// Errors wrap sdkauth.ErrInvalidToken, or are a ragd.Error of
	// KindUnavailable.
	Verify(ctx context.Context, token string) (*Principal, *sdkauth.TokenInfo, error)
}

// issuedVerifier checks the static keys, then the tokens ragd issued.
type issuedVerifier struct {
	static *staticVerifier     // nil without keys
	server AuthorizationServer // nil until EnableOAuth
}

func (v *issuedVerifier) verify(ctx context.Context, token string) (*Principal, *sdkauth.TokenInfo, error) {
	if v.static != nil {
		if p, ti, err := v.static.verify(ctx, token); err == nil {
			return p, ti, nil
		}
	}
	if v.server == nil {
		return nil, nil, fmt.Errorf("%w: ragd's authorization server is not enabled", sdkauth.ErrInvalidToken)
	}
	p, ti, err := v.server.Verify(ctx, token)
	if ragd.KindOf(err) == ragd.KindUnavailable {
		return nil, nil, errUnavailable
	}
	return p, ti, err
}

// names lists the static keys' names, for logs.
func (v *issuedVerifier) names() []string {
	if v.static == nil {
		return nil
	}
	return v.static.names()
}

// EnableOAuth makes the middleware accept the access tokens as issues
// (oauth mode), leave its paths open (they need no token), advertise it
// in the protected-resource metadata with scopes, and ask writeTool which
// MCP tools need scope write. It is called once, before serving.
func (a *Authenticator) EnableOAuth(as AuthorizationServer, paths, scopes []string, writeTool func(name string) bool) error {
	v, ok := a.verifier.(*issuedVerifier)
	switch {
	case !ok:
		return fmt.Errorf("auth: an authorization server needs auth.mode oauth, not %s", a.mode)
	case as == nil:
		return fmt.Errorf("auth: auth.mode oauth needs its authorization server")
	}
	v.server = as
	a.issued = v
	a.oauthPaths = slices.Clone(paths)
	a.offered = slices.Clone(scopes)
	a.authServers = []string{as.Issuer()}
	a.writeTool = writeTool
	return nil
}

// ScopeNeeded is the scope a token ragd issued needs for r (see the
// Scope constants).
func (a *Authenticator) ScopeNeeded(r *http.Request) string {
	p := cleanPath(r.URL.Path)
	switch {
	case a.Operator(p):
		return ScopeOperator
	case readOnly(r.Method):
		return ScopeRead
	case p == mcpPath:
		// Every MCP method but a call of a tool that changes state and a
		// task's cancel (a job's) reads; DELETE only ends the client's own
		// session.
		if r.Method == http.MethodPost && a.callsWriteTool(r) {
			return ScopeWrite
		}
		return ScopeRead
	case r.Method == http.MethodPost && slices.Contains(ReadPosts, p):
		return ScopeRead
	}
	return ScopeWrite
}

// callsWriteTool reads the start of an MCP request (and puts it back) and
// reports whether it calls a tool that changes state or cancels a task (a
// job, as core_cancel_job and POST /jobs/{id}/cancel do), or cannot be
// read within maxPeekBytes.
func (a *Authenticator) callsWriteTool(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || len(head) > maxPeekBytes {
		return true
	}
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var calls []call
	if bytes.HasPrefix(bytes.TrimSpace(head), []byte("[")) {
		if json.Unmarshal(head, &calls) != nil {
			return true
		}
	} else {
		var c call
		if json.Unmarshal(head, &c) != nil {
			return false // not JSON-RPC: the server refuses it
		}
		calls = []call{c}
	}
	for _, c := range calls {
		if c.Method == "tools/call" && (a.writeTool == nil || a.writeTool(c.Params.Name)) || c.Method == "tasks/cancel" {
			return true
		}
	}
	return false
}

// readCloser reads from r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }
