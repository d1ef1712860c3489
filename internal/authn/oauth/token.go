package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"ragd"
)

// token is the token endpoint: authorization_code and refresh_token
// grants for public clients.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body must be a form")
		return
	}
	client, ok := clientOf(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client_id in the body and in Basic credentials differ")
		return
	}
	form := func(k string) string {
		if k == "client_id" {
			return client
		}
		return r.PostForm.Get(k)
	}
	var t tokens
	var err error
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		t, err = s.codeGrant(r.Context(), form)
	case "refresh_token":
		t, err = s.refreshGrant(r.Context(), form)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
		return
	}
	var ge *grantError
	switch {
	case errors.As(err, &ge):
		s.log.InfoContext(r.Context(), "oauth: token refused", "error", ge.code, "why", ge.description)
		oauthError(w, http.StatusBadRequest, ge.code, ge.description)
	case err != nil:
		s.unavailable(w, r, err)
	default:
		writeJSON(w, http.StatusOK, t)
	}
}

// clientOf is the client_id of a token request: the body's, or the user
// of HTTP Basic credentials (RFC 6749 §2.3.1, which clients that try
// client_secret_basic first send with an empty password); false when the
// two differ.
func clientOf(r *http.Request) (string, bool) {
	id := r.PostForm.Get("client_id")
	user, _, basic := r.BasicAuth()
	if basic {
		if u, err := url.QueryUnescape(user); err == nil {
			user = u
		}
	}
	switch {
	case !basic || user == id:
		return id, true
	case id == "":
		return user, true
	}
	return "", false
}

// grantError is a refused grant (RFC 6749 §5.2).
type grantError struct{ code, description string }

func (e *grantError) Error() string { return e.code + ": " + e.description }

func invalidGrant(description string) error {
	return &grantError{code: "invalid_grant", description: description}
}

// codeGrant redeems a code once: a second use finds it marked used and
// revokes the family the first started. The client, redirect_uri,
// resource and PKCE verifier must match the authorization; a request where
// they do not leaves the code as it was.
func (s *Server) codeGrant(ctx context.Context, form func(string) string) (tokens, error) {
	fam := secret(18)
	var c code
	var reused string
	_, err := s.cfg.Store.Update(ctx, s.cfg.Keys.OAuthCode(digest(form("code"))), CodeTTL, func(old []byte, found bool) ([]byte, error) {
		if !found {
			return nil, invalidGrant("the code is unknown or expired")
		}
		if err := json.Unmarshal(old, &c); err != nil {
			return nil, err
		}
		if c.Used {
			reused = c.Family
			return nil, invalidGrant("the code was already used; the tokens it gave are revoked")
		}
		if err := s.redeemable(c, form); err != nil {
			return nil, err
		}
		c.Used, c.Family = true, fam
		used := c
		used.Credential, used.Person = nil, Person{}
		return json.Marshal(used)
	})
	if reused != "" {
		if rerr := s.revokeFamily(ctx, reused, "authorization code reused"); rerr != nil {
			return tokens{}, rerr
		}
	}
	if err != nil {
		return tokens{}, err
	}
	refresh := secret(32)
	f := family{ID: fam, ClientID: c.ClientID, Scopes: c.Scopes, Person: c.Person, Credential: c.Credential, Refresh: digest(refresh), Created: s.cfg.Now()}
	if err := s.save(ctx, s.cfg.Keys.OAuthFamily(fam), f, s.cfg.RefreshTTL); err != nil {
		return tokens{}, err
	}
	return s.issue(ctx, f, refresh)
}

// redeemable checks a token request against the code's authorization.
func (s *Server) redeemable(c code, form func(string) string) error {
	switch {
	case form("client_id") != c.ClientID:
		return invalidGrant("the code was issued to another client")
	case form("redirect_uri") != c.RedirectURI:
		return invalidGrant("redirect_uri differs from the authorization's")
	case form("code_verifier") == "" || !sameDigest(s256(form("code_verifier")), c.Challenge):
		return invalidGrant("the PKCE code_verifier does not match the code_challenge")
	case !s.ownResource(form("resource")):
		return &grantError{code: "invalid_target", description: "resource must be this server, " + s.issuer}
	}
	return nil
}

// refreshGrant rotates a refresh token: the current one gives a new pair;
// a rotated one (a reuse: it was stolen, or the client is confused)
// revokes the family. The person is re-checked upstream, and the grants
// resolved again, so one removed from a team loses access here.
func (s *Server) refreshGrant(ctx context.Context, form func(string) string) (tokens, error) {
	id, sec, _ := strings.Cut(form("refresh_token"), ".")
	if id == "" || sec == "" {
		return tokens{}, invalidGrant("the refresh token is malformed")
	}
	key, next := s.cfg.Keys.OAuthFamily(id), secret(32)
	var f family
	var reused bool
	_, err := s.cfg.Store.Update(ctx, key, s.cfg.RefreshTTL, func(old []byte, found bool) ([]byte, error) {
		if !found {
			return nil, invalidGrant("the refresh token is unknown, expired or revoked")
		}
		if err := json.Unmarshal(old, &f); err != nil {
			return nil, err
		}
		d := digest(sec)
		switch {
		case slices.ContainsFunc(f.Previous, func(p string) bool { return sameDigest(p, d) }):
			reused = true
			return nil, invalidGrant("the refresh token was already used; every token of this grant is revoked")
		case !sameDigest(d, f.Refresh):
			return nil, invalidGrant("the refresh token is unknown, expired or revoked")
		case form("client_id") != f.ClientID:
			return nil, invalidGrant("the refresh token was issued to another client")
		}
		f.Previous = append(f.Previous, f.Refresh)
		if len(f.Previous) > maxPrevious {
			f.Previous = f.Previous[1:]
		}
		f.Refresh = digest(next)
		return json.Marshal(f)
	})
	if reused {
		if rerr := s.revokeFamily(ctx, id, "refresh token reused"); rerr != nil {
			return tokens{}, rerr
		}
	}
	if err != nil {
		return tokens{}, err
	}
	if err := s.recheck(ctx, &f); err != nil {
		return tokens{}, err
	}
	return s.issue(ctx, f, next)
}

// recheck reads the person again upstream and stores what their grants
// give now; a person refused now loses the family.
func (s *Server) recheck(ctx context.Context, f *family) error {
	person, credential, err := s.cfg.SignIn.Recheck(ctx, f.Credential)
	switch {
	case ragd.KindOf(err) == ragd.KindUnavailable:
		return err
	case err != nil:
		if rerr := s.revokeFamily(ctx, f.ID, "the person is refused upstream now"); rerr != nil {
			return rerr
		}
		msg := ragd.PublicMessage(err)
		if msg == "" {
			msg = "the sign-in upstream no longer holds"
		}
		return invalidGrant(msg)
	}
	f.Person, f.Credential = person, credential
	_, err = s.cfg.Store.Update(ctx, s.cfg.Keys.OAuthFamily(f.ID), s.cfg.RefreshTTL, func(old []byte, found bool) ([]byte, error) {
		var cur family
		if !found {
			return nil, invalidGrant("the grant was revoked meanwhile")
		}
		if err := json.Unmarshal(old, &cur); err != nil {
			return nil, err
		}
		cur.Person, cur.Credential = person, credential
		return json.Marshal(cur)
	})
	return err
}

// revoke is RFC 7009: a refresh token or an access token revokes its
// family; an unknown token is no error (§2.2).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body must be a form")
		return
	}
	tok := r.PostForm.Get("token")
	var id string
	if c, err := s.parse(r.Context(), tok); err == nil {
		id = c.Family
	} else if fam, sec, ok := strings.Cut(tok, "."); ok && !strings.Contains(sec, ".") {
		var f family
		if found, err := s.load(r.Context(), s.cfg.Keys.OAuthFamily(fam), &f); err == nil && found &&
			(sameDigest(digest(sec), f.Refresh) || slices.Contains(f.Previous, digest(sec))) {
			id = fam
		}
	}
	if id != "" {
		if err := s.revokeFamily(r.Context(), id, "revoked by its client"); err != nil {
			s.unavailable(w, r, err)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
