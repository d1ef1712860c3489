package oauth

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"ragd"
)

// authorize starts an authorization: the client and redirect_uri are
// checked first, and a request failing there gets an error page, never a
// redirect (an unregistered redirect_uri would make ragd an open
// redirector). Then PKCE S256, the resource and the scopes are checked,
// refusals going back to the client; the person is sent to sign in
// upstream with ragd's own state and PKCE.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, err := s.client(r.Context(), q.Get("client_id"))
	if ragd.KindOf(err) == ragd.KindUnavailable {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	if err != nil {
		s.errorPage(w, r, http.StatusBadRequest, ragd.PublicMessage(err))
		return
	}
	redirect := q.Get("redirect_uri")
	if !c.redirectAllowed(redirect) {
		s.log.WarnContext(r.Context(), "oauth: unregistered redirect_uri refused", "client", c.Name)
		s.errorPage(w, r, http.StatusBadRequest, "The redirect_uri is not one this client registered; ragd will not send you there.")
		return
	}
	req := request{ClientID: c.ID, ClientName: c.Name, RedirectURI: redirect, State: q.Get("state"), Challenge: q.Get("code_challenge")}
	back := func(code, description string) { s.redirectError(w, r, req, code, description) }
	scopes, bad := requestedScopes(q.Get("scope"))
	switch {
	case q.Get("response_type") != "code":
		back("unsupported_response_type", "response_type must be code")
	case req.Challenge == "":
		back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method S256")
	case q.Get("code_challenge_method") != "S256":
		back("invalid_request", "only code_challenge_method S256 is supported")
	case len(req.Challenge) != 43:
		back("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)")
	case !s.ownResource(q.Get("resource")):
		back("invalid_target", "resource must be this server, "+s.issuer)
	case bad != "":
		back("invalid_scope", "unknown scope "+bad+"; ragd's are "+strings.Join(Scopes, ", "))
	default:
		req.Scopes = scopes
		s.signIn(w, r, req)
	}
}

// requestedScopes parses scope, DefaultScopes when empty; bad names an
// unknown scope. offline_access, which asks for a refresh token ragd
// always gives, is dropped.
func requestedScopes(scope string) (scopes []string, bad string) {
	for _, sc := range strings.Fields(scope) {
		switch {
		case sc == "offline_access" || slices.Contains(scopes, sc):
		case slices.Contains(Scopes, sc):
			scopes = append(scopes, sc)
		default:
			return nil, sc
		}
	}
	if len(scopes) == 0 {
		scopes = slices.Clone(DefaultScopes)
	}
	return scopes, ""
}

// signIn keeps the request under ragd's own state and sends the browser
// upstream with ragd's own PKCE challenge and fixed callback.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, req request) {
	state, verifier := secret(24), secret(32)
	if err := s.save(r.Context(), s.cfg.Keys.OAuthPending(digest(state)), pending{request: req, Verifier: verifier}, pendingTTL); err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	http.Redirect(w, r, s.cfg.SignIn.AuthCodeURL(state, s256(verifier), s.issuer+CallbackPath), http.StatusFound)
}

// redirectError sends the browser back to the client's checked
// redirect_uri with an OAuth error, its state and ragd's iss (RFC 9207).
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, req request, code, description string) {
	s.log.InfoContext(r.Context(), "oauth: authorization refused", "client", req.ClientName, "error", code, "why", description)
	s.redirectBack(w, r, req, url.Values{"error": {code}, "error_description": {description}})
}

// redirectBack redirects to req's redirect_uri with params, state and iss.
func (s *Server) redirectBack(w http.ResponseWriter, r *http.Request, req request, params url.Values) {
	u, _ := url.Parse(req.RedirectURI) // checked against the registration
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.State != "" {
		q.Set("state", req.State)
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// callback is where the upstream provider sends the browser back. The
// state must name a pending authorization of this server (else an error
// page, no redirect: the callback redirects nowhere a client did not
// register); the code is traded upstream with ragd's verifier; a person
// the grants refuse gets a page saying why.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var p pending
	ok, err := s.take(r.Context(), s.cfg.Keys.OAuthPending(digest(q.Get("state"))), &p)
	switch {
	case err != nil:
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	case !ok || q.Get("state") == "":
		s.errorPage(w, r, http.StatusBadRequest, "This sign-in is unknown or has expired; start again from your application.")
		return
	case q.Get("error") != "":
		s.redirectError(w, r, p.request, "access_denied", "the sign-in upstream did not complete")
		return
	}
	person, credential, err := s.cfg.SignIn.Exchange(r.Context(), q.Get("code"), p.Verifier, s.issuer+CallbackPath)
	switch ragd.KindOf(err) {
	case ragd.KindForbidden:
		s.log.InfoContext(r.Context(), "oauth: sign-in refused", "why", err)
		s.errorPage(w, r, http.StatusForbidden, ragd.PublicMessage(err))
		return
	case ragd.KindUnavailable:
		s.log.ErrorContext(r.Context(), "oauth: upstream sign-in failed", "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "The sign-in provider is unavailable; try again in a moment.")
		return
	}
	if err != nil {
		s.log.WarnContext(r.Context(), "oauth: upstream sign-in failed", "err", err)
		s.errorPage(w, r, http.StatusBadRequest, "The sign-in did not complete; start again from your application.")
		return
	}
	s.askConsent(w, r, ask{request: p.request, Person: person, Credential: credential})
}
