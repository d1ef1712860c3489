package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"ragd"
)

// openID signs in with an OpenID Connect provider found by discovery.
type openID struct {
	cfg Config

	mu sync.Mutex
	d  *discovery // nil until discovery has worked
}

// discovery is what the provider's discovery document gave.
type discovery struct {
	conf     oauth2.Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	// offline: the provider lists offline_access; otherwise ragd asks for a
	// refresh token the way Google does (access_type=offline,
	// prompt=consent).
	offline     bool
	groupsClaim string
}

// discoveryRetry bounds the discovery AuthCodeURL makes when the provider
// could not be reached before (AuthCodeURL has no context of its own).
const discoveryRetry = 10 * time.Second

// newOIDC discovers the provider. A provider that answers wrongly (another
// issuer, no document: a mistake in issuer_url) is an error here; one
// that cannot be reached or fails (5xx) is discovered again at its first
// use, so ragd starts (and its static keys work) while it is down.
func newOIDC(ctx context.Context, cfg Config) (*openID, error) {
	if cfg.IssuerURL == "" {
		return nil, errors.New("upstream: oidc needs IssuerURL")
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = DefaultGroupsClaim
	}
	o := &openID{cfg: cfg}
	if _, err := o.ready(ctx); err != nil && ragd.KindOf(err) != ragd.KindUnavailable {
		return nil, err
	}
	return o, nil
}

// ready is the discovery, made now if it has not worked yet.
func (o *openID) ready(ctx context.Context) (*discovery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.d != nil {
		return o.d, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.cfg.HTTPClient), o.cfg.IssuerURL)
	if err != nil {
		return nil, discoveryError(o.cfg.IssuerURL, err)
	}
	var meta struct {
		Scopes []string `json:"scopes_supported"`
	}
	_ = p.Claims(&meta) // discovery's body parsed once already: cannot fail
	scopes := []string{oidc.ScopeOpenID, "profile", "email"}
	// Dex, Authentik and others put groups in the ID token only when asked.
	for _, s := range []string{"groups", oidc.ScopeOfflineAccess} {
		if slices.Contains(meta.Scopes, s) {
			scopes = append(scopes, s)
		}
	}
	o.d = &discovery{provider: p, verifier: p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}),
		offline: slices.Contains(meta.Scopes, oidc.ScopeOfflineAccess), groupsClaim: o.cfg.GroupsClaim,
		conf: oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: p.Endpoint(), Scopes: scopes}}
	return o.d, nil
}

// discoveryError is Unavailable for a provider that could not be reached
// or failed (a network error, a 5xx answer); a plain error for one that
// answered wrongly (another issuer, no document, not JSON), a mistake in
// issuer_url.
func discoveryError(issuer string, err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) || serverFailed.MatchString(err.Error()) {
		return ragd.Unavailable(ProviderOIDC, fmt.Errorf("discovery at %s: %w", issuer, err))
	}
	return fmt.Errorf("upstream: discovery at %s: %w", issuer, err)
}

// serverFailed is how go-oidc reports a 5xx answer: "<status>: <body>".
var serverFailed = regexp.MustCompile(`^5\d\d\b`)

// AuthCodeURL implements Provider. Should the provider still be
// undiscovered and unreachable, the browser is sent to the issuer itself,
// which shows the person that it is down.
func (o *openID) AuthCodeURL(state, codeChallenge, redirectURI string) string {
	ctx, cancel := context.WithTimeout(context.Background(), discoveryRetry)
	defer cancel()
	d, err := o.ready(ctx)
	if err != nil {
		return o.cfg.IssuerURL
	}
	conf := d.conf
	conf.RedirectURL = redirectURI
	opts := append(pkce(codeChallenge), oidc.Nonce(nonceFor(codeChallenge)))
	if !d.offline {
		// Google gives a refresh token for access_type=offline, and again
		// after the first sign-in only with prompt=consent.
		opts = append(opts, oauth2.AccessTypeOffline, oauth2.SetAuthURLParam("prompt", "consent"))
	}
	return conf.AuthCodeURL(state, opts...)
}

// Exchange implements Provider: the ID token is verified (issuer,
// audience, signature, expiry) and must carry this sign-in's nonce.
func (o *openID) Exchange(ctx context.Context, code, verifier, redirectURI string) (Identity, []byte, error) {
	d, err := o.ready(ctx)
	if err != nil {
		return Identity{}, nil, err
	}
	conf := d.conf
	conf.RedirectURL = redirectURI
	ctx = withClient(ctx, o.cfg.HTTPClient)
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, nil, tokenError(ProviderOIDC, err)
	}
	idt, err := d.verify(ctx, tok)
	if err != nil {
		return Identity{}, nil, err
	}
	if idt == nil {
		return Identity{}, nil, ragd.Forbidden("the OIDC provider answered the sign-in without an ID token")
	}
	if idt.Nonce != nonceFor(oauth2.S256ChallengeFromVerifier(verifier)) {
		return Identity{}, nil, ragd.Forbidden("the ID token is not for this sign-in (its nonce differs)")
	}
	id, err := d.identity(ctx, tok, idt, idt.Subject)
	if err != nil {
		return Identity{}, nil, err
	}
	return id, credential{Subject: id.Subject, RefreshToken: tok.RefreshToken}.encode(), nil
}

// Recheck implements Provider: the refresh token is used, and the person
// read again from the new ID token and userinfo. Without a refresh token
// the provider cannot be asked, and the person must sign in again.
func (o *openID) Recheck(ctx context.Context, stored []byte) (Identity, []byte, error) {
	c, err := decodeCredential(stored)
	if err != nil {
		return Identity{}, nil, err
	}
	if c.RefreshToken == "" {
		return Identity{}, nil, ragd.Forbidden("the OIDC provider gave ragd no refresh token, so it cannot re-check this person; sign in again")
	}
	d, err := o.ready(ctx)
	if err != nil {
		return Identity{}, nil, err
	}
	ctx = withClient(ctx, o.cfg.HTTPClient)
	old := &oauth2.Token{RefreshToken: c.RefreshToken, Expiry: time.Unix(1, 0)}
	tok, err := d.conf.TokenSource(ctx, old).Token()
	if err != nil {
		return Identity{}, nil, tokenError(ProviderOIDC, err)
	}
	idt, err := d.verify(ctx, tok)
	if err != nil {
		return Identity{}, nil, err
	}
	id, err := d.identity(ctx, tok, idt, c.Subject)
	if err != nil {
		return Identity{}, nil, err
	}
	if err := sameSubject(c, id); err != nil {
		return Identity{}, nil, err
	}
	return id, credential{Subject: id.Subject, RefreshToken: tok.RefreshToken}.encode(), nil
}

// verify checks the answer's ID token, nil when it has none.
func (d *discovery) verify(ctx context.Context, tok *oauth2.Token) (*oidc.IDToken, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, nil
	}
	idt, err := d.verifier.Verify(ctx, raw)
	if err != nil {
		if strings.Contains(err.Error(), "fetching keys") {
			return nil, ragd.Unavailable(ProviderOIDC, err)
		}
		return nil, ragd.Forbidden("the OIDC provider's ID token does not verify: %v", err)
	}
	return idt, nil
}

// identity reads the person from the ID token's claims (idt, nil when a
// refresh gave none) and the userinfo answer, which fills the claims the
// ID token lacks; both must name subject.
func (d *discovery) identity(ctx context.Context, tok *oauth2.Token, idt *oidc.IDToken, subject string) (Identity, error) {
	claims := map[string]any{}
	if idt != nil {
		if idt.Subject != subject {
			return Identity{}, ragd.Forbidden("the OIDC account behind this sign-in changed; sign in again")
		}
		if err := idt.Claims(&claims); err != nil {
			return Identity{}, ragd.Forbidden("the ID token's claims are unreadable: %v", err)
		}
	}
	if d.provider.UserInfoEndpoint() != "" {
		ui, err := d.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return Identity{}, ragd.Unavailable(ProviderOIDC, fmt.Errorf("userinfo: %w", err))
		}
		if ui.Subject != subject {
			return Identity{}, ragd.Forbidden("the OIDC userinfo names another subject than the ID token")
		}
		var more map[string]any
		if err := ui.Claims(&more); err == nil {
			for k, v := range more {
				if _, ok := claims[k]; !ok {
					claims[k] = v
				}
			}
		}
	}
	return identityOf(subject, claims, d.groupsClaim), nil
}

// identityOf reads an OIDC identity from its claims. Email is kept only
// when email_verified is true (a boolean, or the string "true" some
// providers send): an address the provider did not verify must not open
// allowed_domains. Login falls back on any email, verified or not.
func identityOf(subject string, claims map[string]any, groupsClaim string) Identity {
	str := func(k string) string { s, _ := claims[k].(string); return s }
	id := Identity{Provider: ProviderOIDC, Subject: subject, Name: str("name"), Login: str("preferred_username"), Groups: stringList(claims[groupsClaim])}
	if v := claims["email_verified"]; v == true || v == "true" {
		id.Email = str("email")
	}
	if id.Login == "" {
		id.Login = str("email")
	}
	return id
}

// stringList reads a claim holding a list of strings, or one string (as
// some providers send a single group).
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
