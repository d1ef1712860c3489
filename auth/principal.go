package auth

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
	// Scopes the token carried (jwt only).
	Scopes []string
	// Groups decide which documents the principal sees (ragd.Audience).
	Groups []string
	// Key is set for a static API key (and a console session of one); a
	// JWT's principal is not a key.
	Key bool
}

// RequireOperator refuses, as Forbidden, all but operators: a static key
// limited to no namespace (or no auth at all). What it guards changes
// every namespace at once (the embedder), which neither a
// namespace-limited key nor a JWT from an identity provider may.
func RequireOperator(ctx context.Context, what string) error {
	p := FromContext(ctx)
	switch {
	case p == nil:
		return nil
	case !p.Key:
		return ragd.Forbidden("%s needs an operator API key (auth.keys, or auth.api_key), not a JWT", what)
	case len(p.Namespaces) > 0:
		return ragd.Forbidden("key %q is limited to namespaces; %s needs an operator key limited to none", p.Name, what)
	}
	return nil
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

// AudienceOf is what ctx's principal sees.
func AudienceOf(ctx context.Context) ragd.Audience { return FromContext(ctx).Audience() }

type principalKey struct{}

// principalExtra is the TokenInfo.Extra key carrying the principal to MCP
// handlers, which see the SDK's TokenInfo rather than our context value in
// some session setups.
const principalExtra = "ragd.principal"

// WithPrincipal attaches p to ctx (for stdio MCP and tests).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
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
