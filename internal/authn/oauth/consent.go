package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// csrfCookie carries the consent form's CSRF token beside the form.
const csrfCookie = "ragd_oauth_csrf"

// askConsent grants at once what the person already allowed this client;
// else it keeps the authorization under a request id and shows the
// consent page, whose form carries the id and a CSRF token the cookie
// carries too.
func (s *Server) askConsent(w http.ResponseWriter, r *http.Request, a ask) {
	var allowed []string
	if _, err := s.load(r.Context(), s.consentKey(a.ClientID, a.Person.Subject), &allowed); err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	if len(a.Scopes) > 0 && !slices.ContainsFunc(a.Scopes, func(sc string) bool { return !slices.Contains(allowed, sc) }) {
		s.grant(w, r, a)
		return
	}
	id, csrf := secret(24), secret(24)
	a.CSRF = digest(csrf)
	if err := s.save(r.Context(), s.cfg.Keys.OAuthConsentRequest(digest(id)), a, pendingTTL); err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: csrf, Path: ConsentPath, HttpOnly: true,
		Secure: strings.HasPrefix(s.issuer, "https://"), SameSite: http.SameSiteStrictMode, MaxAge: int(pendingTTL.Seconds())})
	s.consentPage(w, a, id, csrf)
}

// consentKey names what a person allowed a client.
func (s *Server) consentKey(clientID, subject string) string {
	return s.cfg.Keys.OAuthConsent(digest(clientID + "\x00" + subject))
}

// consent takes the consent form: it must come from ragd's own origin and
// carry the request's CSRF token in the form and the cookie; then Allow
// grants a code and Deny tells the client access_denied.
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r.Header.Get("Origin")) {
		s.log.WarnContext(r.Context(), "oauth: consent from another origin refused", "remote", r.RemoteAddr)
		s.errorPage(w, r, http.StatusForbidden, "The consent form must be sent from ragd's own page.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	key := s.cfg.Keys.OAuthConsentRequest(digest(r.PostFormValue("request")))
	var a ask
	ok, err := s.load(r.Context(), key, &a)
	switch {
	case err != nil:
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	case !ok:
		s.errorPage(w, r, http.StatusBadRequest, "This consent request is unknown or has expired; start again from your application.")
		return
	}
	form := r.PostFormValue("csrf")
	cookie, _ := r.Cookie(csrfCookie)
	if form == "" || cookie == nil || cookie.Value != form || !sameDigest(digest(form), a.CSRF) {
		s.log.WarnContext(r.Context(), "oauth: consent without its CSRF token refused", "remote", r.RemoteAddr)
		s.errorPage(w, r, http.StatusForbidden, "The consent form's CSRF token is missing or wrong; reload the page from your application.")
		return
	}
	if ok, err = s.take(r.Context(), key, &a); err != nil || !ok {
		s.errorPage(w, r, http.StatusBadRequest, "This consent request was already answered.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Path: ConsentPath, MaxAge: -1})
	if r.PostFormValue("decision") != "allow" {
		s.redirectError(w, r, a.request, "access_denied", "the person denied access")
		return
	}
	if err := s.save(r.Context(), s.consentKey(a.ClientID, a.Person.Subject), a.Scopes, consentTTL); err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	s.grant(w, r, a)
}

// sameOrigin: origin is the issuer's scheme://host[:port].
func (s *Server) sameOrigin(origin string) bool {
	u, err := url.Parse(s.issuer)
	return err == nil && origin != "" && strings.EqualFold(origin, u.Scheme+"://"+u.Host)
}

// grant issues a single-use code for a and redirects the browser to the
// client with it, the state and iss.
func (s *Server) grant(w http.ResponseWriter, r *http.Request, a ask) {
	c := secret(32)
	raw, err := json.Marshal(code{request: a.request, Person: a.Person, Credential: a.Credential})
	if err == nil {
		err = s.cfg.Store.Set(r.Context(), s.cfg.Keys.OAuthCode(digest(c)), raw, CodeTTL)
	}
	if err != nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "ragd's state is unavailable; try again in a moment.")
		return
	}
	s.log.InfoContext(r.Context(), "oauth: authorized", "person", a.Person.Name, "client", a.ClientName, "scopes", a.Scopes)
	s.redirectBack(w, r, a.request, url.Values{"code": {c}})
}

// revokeFamily deletes a token family: its access tokens fail Verify and
// its refresh token /token.
// Deleted first, then announced: a replica that missed the message finds
// the family gone when it next asks.
func (s *Server) revokeFamily(ctx context.Context, id, why string) error {
	s.log.WarnContext(ctx, "oauth: token family revoked", "why", why)
	if err := s.cfg.Store.Delete(ctx, s.cfg.Keys.OAuthFamily(id)); err != nil {
		return err
	}
	s.checked.revoked(id)
	return s.cfg.Store.Publish(ctx, s.cfg.Keys.OAuthRevocations(), id)
}

// namespacesShown is how the consent page names the person's namespaces.
func namespacesShown(p Person) string {
	if p.Namespaces == nil {
		return "every namespace"
	}
	return strings.Join(p.Namespaces, ", ")
}

// redirectHost is the host a client's redirect goes to, as the page shows it.
func redirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return uri
	}
	return u.Host
}
