package authn

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Middleware protects next: it validates the Origin header, then, unless
// auth is disabled or the path is public, requires "Authorization: Bearer
// <token>" or the web console's session cookie. Missing or invalid tokens
// get 401, tokens lacking a required scope 403, each with a JSON {"detail"}
// body and a WWW-Authenticate challenge. On success the Principal is in the
// request context ([FromContext]) and the MCP SDK's TokenInfo is too
// (sdkauth.TokenInfoFromContext), which the SDK uses to pin sessions to
// their user.
//
// Operator paths (Config.OperatorPaths) also take the token as the password
// of HTTP Basic credentials, offer a Basic challenge besides the Bearer one,
// and answer 403 to principals limited to namespaces.
//
// A request the session cookie authenticates that may change state (not
// GET, HEAD or OPTIONS) must carry an Origin header — which the Origin
// check has then matched exactly — besides the cookie's SameSite=Strict:
// the two together keep other sites from riding on the session. So must a
// login or logout that carries the cookie.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	withTokenInfo := handoff(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// First, and in every mode: it also stops a cross-site page from
		// riding on a browser's cached Basic credentials for operator paths.
		if detail := a.origins.check(r); detail != "" {
			a.log.WarnContext(r.Context(), "auth: refused origin", "detail", detail, "path", r.URL.Path, "remote", r.RemoteAddr)
			writeDetail(w, http.StatusForbidden, detail)
			return
		}
		if a.sessionEndpoint(r) {
			if hasSessionCookie(r) && withoutOrigin(r) {
				a.refuseWithoutOrigin(w, r, "carrying")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if a.verifier == nil || (readOnly(r.Method) && a.Public(r.URL.Path)) || (a.issued != nil && matchPath(a.oauthPaths, cleanPath(r.URL.Path))) {
			next.ServeHTTP(w, r)
			return
		}
		p, ti, via, ok := a.identify(w, r)
		if !ok || !a.admit(w, r, p) {
			return
		}
		a.log.DebugContext(r.Context(), "auth: accepted", "principal", p.Name, "via", via, "path", r.URL.Path)
		if ti.Extra == nil {
			ti.Extra = map[string]any{}
		}
		ti.Extra[principalExtra] = p
		ctx := withVerified(WithPrincipal(r.Context(), p), ti)
		if via != viaBearer {
			// The SDK's bearer middleware in handoff would refuse Basic and
			// cookies; the UIs they serve are no MCP endpoint.
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		withTokenInfo.ServeHTTP(w, r.WithContext(ctx))
	})
}

// How a request was authenticated.
const (
	viaBearer = "bearer"
	viaBasic  = "basic"
	viaCookie = "cookie"
)

// sessionEndpoint: logging in and out needs no token (the Origin check
// has run, so a foreign Origin is already refused: no login CSRF). The
// browser's cookie still rides on them, so a login or logout carrying the
// session cookie must carry an Origin, like any cookie-authenticated POST:
// else a request from outside the console could end the session. Without
// the cookie, a login lacking Origin passes as a bearer request does: it is
// no browser's (browsers send Origin on every POST), there is no session
// to ride on, and it must bring a valid token of its own.
func (a *Authenticator) sessionEndpoint(r *http.Request) bool {
	p := cleanPath(r.URL.Path)
	return r.Method == http.MethodPost && (p == LoginPath || p == LogoutPath)
}

// hasSessionCookie reports whether r carries a (non-empty) session cookie.
func hasSessionCookie(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	return err == nil && c.Value != ""
}

// withoutOrigin: r may change state and names no Origin, which a request
// the session cookie rides on must (see Middleware).
func withoutOrigin(r *http.Request) bool {
	return !readOnly(r.Method) && r.Header.Get("Origin") == ""
}

// refuseWithoutOrigin answers 403 to a cookie request without Origin; how
// says how the cookie relates to it ("authenticated by", "carrying").
func (a *Authenticator) refuseWithoutOrigin(w http.ResponseWriter, r *http.Request, how string) {
	a.log.WarnContext(r.Context(), "auth: cookie request without Origin refused", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
	writeDetail(w, http.StatusForbidden, "a "+r.Method+" request "+how+" the session cookie must carry an Origin header")
}

// identify finds and verifies the request's credentials: a bearer token,
// Basic credentials on operator paths, else the session cookie. On
// failure it has answered the request and ok is false.
func (a *Authenticator) identify(w http.ResponseWriter, r *http.Request) (p *Principal, ti *sdkauth.TokenInfo, via string, ok bool) {
	operator := a.Operator(r.URL.Path)
	token, ok := bearerToken(r)
	via = viaBearer
	if !ok && operator {
		token, ok = basicToken(r)
		via = viaBasic
	}
	var err error
	switch {
	case ok:
		p, ti, err = a.verifier.verify(r.Context(), token)
	default:
		var found bool
		p, ti, found, err = a.sessionPrincipal(r)
		via = viaCookie
		if !found {
			a.log.DebugContext(r.Context(), "auth: no bearer token", "path", r.URL.Path, "remote", r.RemoteAddr)
			missing := "missing bearer token"
			if operator {
				missing = "missing bearer token or basic credentials"
			}
			a.challenge(w, r, http.StatusUnauthorized, "", missing)
			return nil, nil, via, false
		}
	}
	switch {
	case errors.Is(err, errUnavailable):
		a.log.ErrorContext(r.Context(), "auth: cannot verify tokens", "err", err)
		w.Header().Set("Retry-After", "5")
		writeDetail(w, http.StatusServiceUnavailable, err.Error())
		return nil, nil, via, false
	case err != nil:
		// err names the failed check; the token itself is never logged.
		a.log.WarnContext(r.Context(), "auth: rejected token", "reason", err, "via", via, "path", r.URL.Path, "remote", r.RemoteAddr)
		a.challenge(w, r, http.StatusUnauthorized, "invalid_token", err.Error())
		return nil, nil, via, false
	case via == viaCookie && withoutOrigin(r):
		a.refuseWithoutOrigin(w, r, "authenticated by")
		return nil, nil, via, false
	}
	return p, ti, via, true
}

// admit checks what a verified principal may do here: the required scopes,
// and the operator UI's rule against namespace-limited principals. On
// refusal it has answered the request.
func (a *Authenticator) admit(w http.ResponseWriter, r *http.Request, p *Principal) bool {
	if need := a.ScopeNeeded(r); p.Scoped && !slices.Contains(p.Scopes, need) {
		a.log.WarnContext(r.Context(), "auth: insufficient scope", "principal", p.Name, "missing", need, "path", r.URL.Path)
		a.challengeScope(w, r, http.StatusForbidden, "insufficient_scope", fmt.Sprintf("token lacks scope %s", need), need)
		return false
	}
	if missing := missingScopes(p.Scopes, a.scopes); len(missing) > 0 {
		a.log.WarnContext(r.Context(), "auth: insufficient scope", "principal", p.Name, "missing", missing, "path", r.URL.Path)
		a.challenge(w, r, http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("token lacks scope %s", strings.Join(missing, " ")))
		return false
	}
	if a.Operator(r.URL.Path) && !p.Operator() {
		// The operator UI shows and acts on every namespace's tasks, their
		// payloads included; the metrics count them.
		a.log.WarnContext(r.Context(), "auth: a principal that is no operator refused an operator path", "principal", p.Name, "path", r.URL.Path)
		writeDetail(w, http.StatusForbidden, RequireOperator(WithPrincipal(r.Context(), p), "this operator path (the Asynq UI or /metrics)").Error())
		return false
	}
	return true
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
