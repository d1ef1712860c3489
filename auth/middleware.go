package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Middleware protects next: it validates the Origin header, then, unless
// auth is disabled or the path is public, requires "Authorization: Bearer
// <token>". Missing or invalid tokens get 401, tokens lacking a required
// scope 403, each with a JSON {"detail"} body and a WWW-Authenticate
// challenge. On success the Principal is in the request context
// ([FromContext]) and the MCP SDK's TokenInfo is too
// (sdkauth.TokenInfoFromContext), which the SDK uses to pin sessions to
// their user.
//
// Operator paths (Config.OperatorPaths) also take the token as the password
// of HTTP Basic credentials, offer a Basic challenge besides the Bearer one,
// and answer 403 to principals limited to namespaces.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	withTokenInfo := handoff(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// First, and in every mode: it also stops a cross-site page from
		// riding on a browser's cached Basic credentials for operator paths.
		if detail := a.origins.check(r); detail != "" {
			a.log.Warn("auth: refused origin", "detail", detail, "path", r.URL.Path, "remote", r.RemoteAddr)
			writeDetail(w, http.StatusForbidden, detail)
			return
		}
		if a.verifier == nil || (readOnly(r.Method) && a.Public(r.URL.Path)) {
			next.ServeHTTP(w, r)
			return
		}
		operator := a.Operator(r.URL.Path)
		token, ok := bearerToken(r)
		basic := false
		if !ok && operator {
			token, ok = basicToken(r)
			basic = ok
		}
		if !ok {
			a.log.Debug("auth: no bearer token", "path", r.URL.Path, "remote", r.RemoteAddr)
			missing := "missing bearer token"
			if operator {
				missing = "missing bearer token or basic credentials"
			}
			a.challenge(w, r, http.StatusUnauthorized, "", missing)
			return
		}
		p, ti, err := a.verifier.verify(r.Context(), token)
		switch {
		case errors.Is(err, errUnavailable):
			a.log.Error("auth: cannot verify tokens", "err", err)
			w.Header().Set("Retry-After", "5")
			writeDetail(w, http.StatusServiceUnavailable, err.Error())
			return
		case err != nil:
			// err names the failed check; the token itself is never logged.
			a.log.Warn("auth: rejected token", "reason", err, "basic", basic, "path", r.URL.Path, "remote", r.RemoteAddr)
			a.challenge(w, r, http.StatusUnauthorized, "invalid_token", err.Error())
			return
		}
		if missing := missingScopes(p.Scopes, a.scopes); len(missing) > 0 {
			a.log.Warn("auth: insufficient scope", "principal", p.Name, "missing", missing, "path", r.URL.Path)
			a.challenge(w, r, http.StatusForbidden, "insufficient_scope",
				fmt.Sprintf("token lacks scope %s", strings.Join(missing, " ")))
			return
		}
		if operator && len(p.Namespaces) > 0 {
			// The operator UI shows and acts on every namespace's tasks.
			a.log.Warn("auth: namespace-limited principal refused the operator UI", "principal", p.Name, "path", r.URL.Path)
			writeDetail(w, http.StatusForbidden,
				fmt.Sprintf("key %q is limited to namespaces and may not use the operator UI", p.Name))
			return
		}
		a.log.Debug("auth: accepted", "principal", p.Name, "basic", basic, "path", r.URL.Path)
		if ti.Extra == nil {
			ti.Extra = map[string]any{}
		}
		ti.Extra[principalExtra] = p
		ctx := withVerified(WithPrincipal(r.Context(), p), ti)
		if basic {
			// The SDK's bearer middleware in handoff would refuse Basic;
			// the operator UI is no MCP endpoint and needs no TokenInfo.
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		withTokenInfo.ServeHTTP(w, r.WithContext(ctx))
	})
}

// bearerToken extracts the token the way sdkauth.RequireBearerToken does,
// so a header we accept is one the handoff accepts too.
func bearerToken(r *http.Request) (string, bool) {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return "", false
	}
	return f[1], true
}

// readOnly methods are the only ones public paths admit without a token:
// POST / is the web-search JSON-RPC endpoint, which spends provider quota.
func readOnly(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}
