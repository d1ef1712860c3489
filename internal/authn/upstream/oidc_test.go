package upstream_test

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"ragd"
	"ragd/internal/authn/upstream"
	"ragd/internal/testkit/testenv"
)

// The OIDC tests sign in at the real provider `make test` starts
// (testenv.OIDC), through its login form.

func oidcConfig(op testenv.OIDCProvider) upstream.Config {
	return upstream.Config{Provider: upstream.ProviderOIDC, ClientID: op.ClientID, ClientSecret: op.ClientSecret, IssuerURL: op.Issuer,
		// The test provider sends no groups claim; preferred_username
		// (from its userinfo) stands in for one, read the same way.
		GroupsClaim:    "preferred_username",
		AllowedDomains: []string{"acme.example"},
		Grants:         []upstream.Grant{{Match: op.User, Namespaces: []string{"eng"}, Groups: []string{"eng"}}},
	}
}

func oidcProvider(t *testing.T, cfg upstream.Config) upstream.Provider {
	t.Helper()
	p, err := upstream.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// oidcSignIn signs user in from authURL and returns the code.
func oidcSignIn(t *testing.T, op testenv.OIDCProvider, authURL, user string) string {
	t.Helper()
	code, state := callback(t, op.SignIn(t, browser(t, op.RedirectURI), authURL, user), op.RedirectURI)
	if state != "st" {
		t.Fatalf("state = %q", state)
	}
	return code
}

// TestOIDCSignIn: discovery, the authorization request (PKCE S256, a
// nonce, offline_access), the login, the code exchanged with the verifier
// and the ID token verified give alice's identity with her verified
// email; Resolve admits her; Recheck refreshes and reads her again, and
// the refresh token it replaced is refused by the provider afterwards.
func TestOIDCSignIn(t *testing.T) {
	op := testenv.OIDC(t)
	cfg := oidcConfig(op)
	p := oidcProvider(t, cfg)
	verifier, challenge := pkcePair()
	authURL := p.AuthCodeURL("st", challenge, op.RedirectURI)
	q := mustQuery(t, authURL)
	if q.Get("code_challenge") != challenge || q.Get("code_challenge_method") != "S256" || q.Get("nonce") == "" ||
		!slices.Contains(strings.Fields(q.Get("scope")), "offline_access") || !slices.Contains(strings.Fields(q.Get("scope")), "openid") {
		t.Fatalf("authorization request %s", authURL)
	}

	id, cred, err := p.Exchange(ctx, oidcSignIn(t, op, authURL, op.User), verifier, op.RedirectURI)
	if err != nil {
		t.Fatal(err)
	}
	if id.Provider != "oidc" || id.Subject != op.User || id.Email != op.User+"@acme.example" || id.Login != op.User || !slices.Equal(id.Groups, []string{op.User}) {
		t.Fatalf("identity %+v", id)
	}
	acc, err := upstream.Resolve(cfg, id)
	if err != nil || !slices.Equal(acc.Namespaces, []string{"eng"}) {
		t.Fatalf("Resolve = %+v, %v", acc, err)
	}

	again, renewed, err := p.Recheck(ctx, cred)
	if err != nil || again.Subject != id.Subject || again.Email != id.Email {
		t.Fatalf("Recheck = %+v, %v", again, err)
	}
	if _, _, err := p.Recheck(ctx, renewed); err != nil {
		t.Fatalf("Recheck with the renewed credential: %v", err)
	}
	if _, _, err := p.Recheck(ctx, cred); ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("Recheck with the replaced refresh token = %v, want Forbidden", err)
	}
}

// TestOIDCRefusals: a wrong verifier, a reused code and an ID token whose
// nonce is not the sign-in's are refused at Exchange; a person of another
// domain and one whose email is not verified are refused by Resolve.
func TestOIDCRefusals(t *testing.T) {
	op := testenv.OIDC(t)
	cfg := oidcConfig(op)
	cfg.Grants = append(cfg.Grants, upstream.Grant{Match: op.OtherUser, Namespaces: []string{"x"}}, upstream.Grant{Match: op.UnverifiedUser, Namespaces: []string{"x"}})
	p := oidcProvider(t, cfg)
	verifier, challenge := pkcePair()
	other, _ := pkcePair()

	code := oidcSignIn(t, op, p.AuthCodeURL("st", challenge, op.RedirectURI), op.User)
	if _, _, err := p.Exchange(ctx, code, other, op.RedirectURI); ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("wrong verifier: %v, want Forbidden", err)
	}
	code = oidcSignIn(t, op, p.AuthCodeURL("st", challenge, op.RedirectURI), op.User)
	if _, _, err := p.Exchange(ctx, code, verifier, op.RedirectURI); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Exchange(ctx, code, verifier, op.RedirectURI); ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("code reused: %v, want Forbidden", err)
	}

	u, _ := url.Parse(p.AuthCodeURL("st", challenge, op.RedirectURI))
	q := u.Query()
	q.Set("nonce", "another-sign-ins-nonce")
	u.RawQuery = q.Encode()
	_, _, err := p.Exchange(ctx, oidcSignIn(t, op, u.String(), op.User), verifier, op.RedirectURI)
	if ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "nonce") {
		t.Fatalf("foreign nonce: %v, want Forbidden naming the nonce", err)
	}

	for _, user := range []string{op.OtherUser, op.UnverifiedUser} {
		id, _, err := p.Exchange(ctx, oidcSignIn(t, op, p.AuthCodeURL("st", challenge, op.RedirectURI), user), verifier, op.RedirectURI)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := upstream.Resolve(cfg, id); ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "allowed_domains") {
			t.Fatalf("%s (%q): Resolve = %v, want Forbidden by allowed_domains", user, id.Email, err)
		}
	}
}

// TestOIDCIssuerMustMatch: discovery whose issuer is not the configured
// one (here the same provider under another host name) is refused, so
// ID tokens of another issuer never verify; so is an issuer without a
// discovery document. Both stop ragd at start: they are mistakes in
// issuer_url, not an outage.
func TestOIDCIssuerMustMatch(t *testing.T) {
	op := testenv.OIDC(t)
	cfg := oidcConfig(op)
	cfg.IssuerURL = strings.Replace(op.Issuer, "localhost", "127.0.0.1", 1)
	if _, err := upstream.New(ctx, cfg); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("New with issuer %s = %v, want an issuer mismatch", cfg.IssuerURL, err)
	}
	cfg.IssuerURL = op.Issuer + "no-such-realm/"
	if _, err := upstream.New(ctx, cfg); err == nil || ragd.KindOf(err) == ragd.KindUnavailable {
		t.Fatalf("New with issuer %s (no discovery document) = %v, want a configuration error", cfg.IssuerURL, err)
	}
}

// outage is a transport that fails every call while down, as a provider
// that cannot be reached does.
type outage struct{ down atomic.Bool }

func (o *outage) RoundTrip(r *http.Request) (*http.Response, error) {
	if o.down.Load() {
		return nil, errors.New("connect: connection refused (the provider is down)")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestOIDCDiscoveredOnceReachable: a provider down when ragd starts does
// not stop it (static keys keep working): New succeeds, a sign-in sends
// the browser to the issuer and an exchange is Unavailable; once the
// provider answers, discovery happens at the next sign-in, which works.
func TestOIDCDiscoveredOnceReachable(t *testing.T) {
	op := testenv.OIDC(t)
	cfg := oidcConfig(op)
	out := &outage{}
	out.down.Store(true)
	cfg.HTTPClient = &http.Client{Transport: out}
	p := oidcProvider(t, cfg)
	verifier, challenge := pkcePair()
	if got := p.AuthCodeURL("st", challenge, op.RedirectURI); got != op.Issuer {
		t.Fatalf("AuthCodeURL while the provider is down = %s, want the issuer %s", got, op.Issuer)
	}
	if _, _, err := p.Exchange(ctx, "code", verifier, op.RedirectURI); ragd.KindOf(err) != ragd.KindUnavailable {
		t.Fatalf("Exchange while the provider is down = %v, want Unavailable", err)
	}

	out.down.Store(false)
	authURL := p.AuthCodeURL("st", challenge, op.RedirectURI)
	if mustQuery(t, authURL).Get("code_challenge") != challenge {
		t.Fatalf("AuthCodeURL once the provider is up = %s", authURL)
	}
	if id, _, err := p.Exchange(ctx, oidcSignIn(t, op, authURL, op.User), verifier, op.RedirectURI); err != nil || id.Subject != op.User {
		t.Fatalf("Exchange once the provider is up = %+v, %v", id, err)
	}
}

func mustQuery(t *testing.T, s string) url.Values {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}
