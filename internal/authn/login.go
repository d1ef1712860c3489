package authn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"ragd"
)

// maxLoginBytes bounds a login body: a key or a JWT, with room to spare.
const maxLoginBytes = 64 << 10

// loginRequest is POST /ui/login's body.
type loginRequest struct {
	Token string `json:"token"`
}

// SessionInfo answers GET /ui/session and a successful login: the auth
// mode and, once logged in (or with auth disabled), who the caller is.
type SessionInfo struct {
	// Mode is disabled, static-token, jwt or oauth (the console then
	// offers to sign in through ragd's authorization server).
	Mode Mode `json:"mode"`
	// LoggedIn is true with a valid session, or with auth disabled.
	LoggedIn bool `json:"logged_in"`
	// Principal names the key or JWT subject.
	Principal string `json:"principal,omitempty"`
	// Namespaces the caller is limited to; empty means all.
	Namespaces []string `json:"namespaces,omitempty"`
	// Operator: the caller is an operator (Principal.Operator) and may open
	// /monitoring.
	Operator bool `json:"operator"`
	// ExpiresAt is when the session ends.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// LoginHandler serves POST /ui/login {"token"} (application/json): it
// checks the key or JWT as the middleware would and answers with a session
// cookie (HttpOnly, SameSite=Strict) and the SessionInfo. A wrong token is
// 401, a JWT lacking a required scope 403, a missing one 422, a body of
// another type 415, one over 64 KiB 413, one not in within
// http.body_timeout 408, an unreachable key or session store 503; with auth
// disabled no cookie is needed (200, the body unread). The Middleware's
// Origin rules apply before it.
func (a *Authenticator) LoginHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.verifier == nil {
			writeJSON(w, http.StatusOK, SessionInfo{Mode: a.mode, LoggedIn: true, Operator: true})
			return
		}
		if a.sessions == nil {
			writeDetail(w, http.StatusNotFound, "browser sessions are not enabled on this server")
			return
		}
		token, ok := loginToken(w, r)
		if !ok {
			return
		}
		p, ti, err := a.verifier.verify(r.Context(), token)
		if err == nil {
			if missing := missingScopes(p.Scopes, a.scopes); len(missing) > 0 {
				writeDetail(w, http.StatusForbidden, fmt.Sprintf("login refused: the token lacks scope %v", missing))
				return
			}
			var id string
			var expires time.Time
			if id, expires, err = a.sessions.open(r.Context(), p, ti, a.mode == ModeStaticToken); err == nil {
				a.log.Info("auth: browser session opened", "principal", p.Name, "remote", r.RemoteAddr)
				http.SetCookie(w, a.sessionCookie(r, id, expires))
				writeJSON(w, http.StatusOK, infoOf(a.mode, p, expires))
				return
			}
		}
		a.refuseLogin(w, r, err)
	})
}

// loginToken reads the token of a login body, in the order the REST API's
// bind checks a body: none at all is a 422, a body not labelled
// application/json a 415 (the console sends JSON; the types a page may send
// cross-site without a CORS preflight — text/plain, forms — are exactly
// the ones refused), malformed JSON or no token a 422; a body over
// maxLoginBytes is a 413, one that could not be read as UnreadBody says.
// On failure it has answered the request.
func loginToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	const hint = `send {"token": "<API key or JWT>"}`
	body, err := io.ReadAll(io.LimitReader(r.Body, maxLoginBytes+1))
	switch {
	case err != nil:
		status, msg := UnreadBody(err, "the login body")
		writeDetail(w, status, msg)
		return "", false
	case len(body) > maxLoginBytes:
		writeDetail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("login body exceeds %d bytes", maxLoginBytes))
		return "", false
	case len(bytes.TrimSpace(body)) == 0:
		writeInvalid(w, "token", hint)
		return "", false
	}
	if err := ragd.CheckJSON(r.Header.Get("Content-Type")); err != nil {
		writeDetail(w, http.StatusUnsupportedMediaType, err.Error())
		return "", false
	}
	var req loginRequest
	if json.Unmarshal(body, &req) != nil || req.Token == "" {
		writeInvalid(w, "token", hint)
		return "", false
	}
	return req.Token, true
}

// refuseLogin answers a login whose token or store failed.
func (a *Authenticator) refuseLogin(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errUnavailable) {
		a.log.Error("auth: cannot open a session", "err", err)
		w.Header().Set("Retry-After", "5")
		writeDetail(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	a.log.Warn("auth: login refused", "reason", err, "remote", r.RemoteAddr)
	writeDetail(w, http.StatusUnauthorized, "login refused: the API key or token is not valid")
}

// LogoutHandler serves POST /ui/logout: it ends the cookie's session (in
// the store, not only in the browser) and clears the cookie. 200 also
// when there was no session. The Middleware refuses a logout that carries
// the cookie but no Origin (403).
func (a *Authenticator) LogoutHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" && a.sessions != nil {
			if err := a.sessions.store.Delete(r.Context(), sessionKey(c.Value)); err != nil {
				a.log.Error("auth: cannot end a session", "err", err)
				w.Header().Set("Retry-After", "5")
				writeDetail(w, http.StatusServiceUnavailable, "session store is unavailable")
				return
			}
		}
		http.SetCookie(w, a.sessionCookie(r, "", time.Time{}))
		writeJSON(w, http.StatusOK, SessionInfo{Mode: a.mode, LoggedIn: a.verifier == nil, Operator: a.verifier == nil})
	})
}

// SessionHandler serves GET /ui/session: the SessionInfo of the request's
// session cookie; 401 (with the mode) when auth is on and there is no
// valid session, 503 when the store is unreachable.
func (a *Authenticator) SessionHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.verifier == nil {
			writeJSON(w, http.StatusOK, SessionInfo{Mode: a.mode, LoggedIn: true, Operator: true})
			return
		}
		p, ti, found, err := a.sessionPrincipal(r)
		switch {
		case errors.Is(err, errUnavailable):
			w.Header().Set("Retry-After", "5")
			writeDetail(w, http.StatusServiceUnavailable, err.Error())
		case !found || err != nil:
			writeJSON(w, http.StatusUnauthorized, SessionInfo{Mode: a.mode})
		default:
			writeJSON(w, http.StatusOK, infoOf(a.mode, p, ti.Expiration))
		}
	})
}

func infoOf(mode Mode, p *Principal, expires time.Time) SessionInfo {
	return SessionInfo{Mode: mode, LoggedIn: true, Principal: p.Name, Namespaces: p.Namespaces,
		Operator: p.Operator(), ExpiresAt: &expires}
}

// writeJSON writes v as the JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeInvalid writes a 422 in the shape of every other ragd validation
// error: {"detail": [{"loc", "msg", "type"}]}.
func writeInvalid(w http.ResponseWriter, field, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{
		{"loc": []string{"body", field}, "msg": msg, "type": "missing"}}})
}
