package authn

import (
	"context"
	"slices"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"ragd"
)

// Principal is who made the request.
type Principal struct {
	// Name is the static key's name or the JWT subject.
	Name string
	// Namespaces the principal may use; empty means all.
	Namespaces []string
	// Scopes the token carried (jwt, oauth).
	Scopes []string
	// Scoped is set for an access token ragd's own authorization server
	// issued (oauth mode): its Scopes bound what it may do (read, write,
	// operator; see ScopeNeeded), besides its namespaces and groups.
	Scoped bool
	// Groups decide which documents the principal sees (ragd.Audience).
	Groups []string
	// Key is set for a static API key (and a console session of one); a
	// JWT's principal is not a key.
	Key bool
	// Roots limit the files and directories the principal may index to
	// these (a static key's auth.keys[].roots, each inside the ingest
	// roots); empty means every ingest root.
	Roots []string
}

// Operator reports whether p is an operator: a principal holding group
// ragd.EveryGroup (it sees every document) and limited to no namespace.
// It is ragd's one definition of an operator: the embedder switch,
// clearing every namespace, the Asynq UI and /metrics (which show every
// namespace's tasks and payloads) and the console's operator flag all ask
// this. Without authentication (p nil) everyone is one. A token ragd
// issued must also carry scope operator.
func (p *Principal) Operator() bool {
	return p == nil || (p.Audience().All() && len(p.Namespaces) == 0 && (!p.Scoped || slices.Contains(p.Scopes, ScopeOperator)))
}

// RequireOperator refuses, as Forbidden, all but operators (Operator):
// what it guards spans every namespace and every document.
func RequireOperator(ctx context.Context, what string) error {
	p := FromContext(ctx)
	switch {
	case p.Operator():
		return nil
	case p.Scoped && !slices.Contains(p.Scopes, ScopeOperator) && p.Audience().All() && len(p.Namespaces) == 0:
		return ragd.Forbidden("%s needs a token with scope %q", what, ScopeOperator)
	case !p.Audience().All():
		return ragd.Forbidden("%s needs an operator: a principal in group %q, which sees every document", what, ragd.EveryGroup)
	}
	return ragd.Forbidden("%q is limited to namespaces; %s needs an operator limited to none", p.Name, what)
}

// RequireEveryDocument refuses, as Forbidden, a principal that does not
// see every document of the namespaces it may use (one not in group
// ragd.EveryGroup): what it guards reads or changes documents hidden from
// others (an export, an import, clearing a namespace).
func RequireEveryDocument(ctx context.Context, what string) error {
	if ragd.AudienceIn(ctx).All() {
		return nil
	}
	return ragd.Forbidden("%s needs an operator: a principal in group %q, which sees every document", what, ragd.EveryGroup)
}

// Allows reports whether p may use namespace. A nil principal (auth
// disabled) may use every namespace.
func (p *Principal) Allows(namespace string) bool {
	return p == nil || len(p.Namespaces) == 0 || slices.Contains(p.Namespaces, namespace)
}

// Audience is what p sees: every document without authentication.
func (p *Principal) Audience() ragd.Audience {
	if p == nil {
		return ragd.EveryDocument()
	}
	return ragd.GroupAudience(p.Groups)
}

type principalKey struct{}

// principalExtra is the TokenInfo.Extra key carrying the principal to MCP
// handlers, which see the SDK's TokenInfo rather than our context value in
// some session setups.
const principalExtra = "ragd.principal"

// WithPrincipal attaches p to ctx, with what p sees (ragd.WithAudience),
// which the chunk store, the registry and the job queue apply to every
// read under ctx. It is the one way a principal enters a context: the
// HTTP middleware, the MCP handlers (from the SDK's token info), stdio
// MCP and tests.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return ragd.WithAudience(context.WithValue(ctx, principalKey{}, p), p.Audience())
}

// FromContext returns the request's principal (nil when auth is disabled).
func FromContext(ctx context.Context) *Principal {
	if p, ok := ctx.Value(principalKey{}).(*Principal); ok {
		return p
	}
	return FromTokenInfo(sdkauth.TokenInfoFromContext(ctx))
}

// FromTokenInfo returns the principal the middleware stored in the MCP SDK's
// token info (an MCP handler's req.Extra.TokenInfo), or nil.
func FromTokenInfo(ti *sdkauth.TokenInfo) *Principal {
	if ti == nil {
		return nil
	}
	p, _ := ti.Extra[principalExtra].(*Principal)
	return p
}

// Namespace validates kb_name (defaulting to the default namespace) and
// checks that ctx's principal may use it.
func Namespace(ctx context.Context, kb string) (string, error) {
	ns, err := ragd.ResolveNamespace(kb)
	if err != nil {
		return "", err
	}
	return ns, CheckNamespace(ctx, ns)
}

// CheckNamespace returns nil if ctx's principal may use namespace, else a
// KindForbidden *ragd.Error.
func CheckNamespace(ctx context.Context, namespace string) error {
	p := FromContext(ctx)
	if p.Allows(namespace) {
		return nil
	}
	return ragd.Forbidden("key %q may not access namespace %q", p.Name, namespace)
}
