package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"ragd"
	"ragd/internal/authn"
)

// Identity is who the upstream provider says signed in.
type Identity struct {
	Provider string   // "github" or "oidc"
	Subject  string   // stable upstream id (GitHub user id, OIDC sub)
	Login    string   // GitHub login, OIDC preferred_username or email
	Name     string   // display name
	Email    string   // a verified address, or empty
	Orgs     []string // GitHub org logins
	Teams    []string // GitHub "org/team-slug"
	Groups   []string // OIDC groups claim
}

// Config is auth.oauth's upstream part.
type Config struct {
	// Provider is ProviderGitHub or ProviderOIDC.
	Provider string
	// ClientID and ClientSecret are ragd's client at the provider; the
	// secret may be env:VAR.
	ClientID, ClientSecret string
	// GitHubURL is GitHub's web address and GitHubAPIURL its REST API
	// (both needed for github: config.AuthOAuth.APIURL gives the second);
	// IssuerURL the OIDC issuer.
	GitHubURL, GitHubAPIURL, IssuerURL string
	// AllowedOrgs and AllowedDomains decide who may sign in at all
	// (Resolve); empty: anyone a grant matches.
	AllowedOrgs, AllowedDomains []string
	// GroupsClaim is the OIDC claim listing groups (default "groups").
	GroupsClaim string
	// Grants map teams, orgs or groups to namespaces and groups.
	Grants []Grant
	// HTTPClient makes every call upstream; nil: a default with timeouts.
	HTTPClient *http.Client
}

// Grant maps a GitHub "org/team" or "org", or an OIDC group, to namespaces and groups.
type Grant struct {
	Match              string
	Namespaces, Groups []string
}

// Provider is the upstream sign-in.
type Provider interface {
	// AuthCodeURL is where the browser goes to sign in upstream; redirectURI is ragd's fixed callback.
	AuthCodeURL(state, codeChallenge, redirectURI string) string
	// Exchange trades the upstream code (with ragd's verifier) for the identity and an opaque credential ragd stores (never logs) to Recheck later.
	Exchange(ctx context.Context, code, verifier, redirectURI string) (Identity, []byte, error)
	// Recheck reads the identity again with the stored credential (at refresh), returning a possibly renewed credential.
	Recheck(ctx context.Context, credential []byte) (Identity, []byte, error)
}

// The providers Config.Provider names.
const (
	ProviderGitHub = "github"
	ProviderOIDC   = "oidc"
)

// DefaultGroupsClaim is the OIDC claim read for groups when Config names none.
const DefaultGroupsClaim = "groups"

// callTimeout bounds each call upstream made with the default client.
const callTimeout = 15 * time.Second

// New returns the Provider cfg names. An oidc provider is discovered here,
// with ctx: its authorization and token endpoints and keys come from
// <issuer>/.well-known/openid-configuration, whose issuer must be
// cfg.IssuerURL (else New fails); a provider that cannot be reached now
// is discovered at its first use instead, so ragd starts without it.
func New(ctx context.Context, cfg Config) (Provider, error) {
	secret, err := authn.ResolveSecret("auth.oauth.client_secret", cfg.ClientSecret)
	if err != nil {
		return nil, err
	}
	cfg.ClientSecret = secret
	if cfg.ClientID == "" {
		return nil, errors.New("upstream: auth.oauth.client_id is empty")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultClient()
	}
	switch cfg.Provider {
	case ProviderGitHub:
		return newGitHub(cfg)
	case ProviderOIDC:
		return newOIDC(ctx, cfg)
	}
	return nil, fmt.Errorf("upstream: auth.oauth.provider must be %s or %s, not %q", ProviderGitHub, ProviderOIDC, cfg.Provider)
}

// defaultClient bounds each call as a whole and its connection.
func defaultClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 5 * time.Second
	tr.ResponseHeaderTimeout = 10 * time.Second
	return &http.Client{Transport: tr, Timeout: callTimeout}
}

// withClient makes x/oauth2 (and go-oidc, which reads the same key) use c.
func withClient(ctx context.Context, c *http.Client) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, c)
}

// pkce adds the S256 challenge to an authorization URL.
func pkce(challenge string) []oauth2.AuthCodeOption {
	return []oauth2.AuthCodeOption{
		oauth2.SetAuthURLParam("code_challenge", challenge),
		oauth2.SetAuthURLParam("code_challenge_method", "S256"),
	}
}

// credential is what Recheck needs, kept by ragd as opaque bytes.
type credential struct {
	Subject      string    `json:"sub"`
	AccessToken  string    `json:"access_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func newCredential(subject string, tok *oauth2.Token) credential {
	return credential{Subject: subject, AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry}
}

func (c credential) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: c.AccessToken, TokenType: c.TokenType, RefreshToken: c.RefreshToken, Expiry: c.Expiry}
}

func (c credential) encode() []byte {
	b, _ := json.Marshal(c) // strings and a time: cannot fail
	return b
}

func decodeCredential(b []byte) (credential, error) {
	var c credential
	if err := json.Unmarshal(b, &c); err != nil || c.Subject == "" {
		return credential{}, ragd.Forbidden("the stored upstream sign-in is unreadable; sign in again")
	}
	return c, nil
}

// sameSubject refuses an identity that is not the one the credential was
// issued for.
func sameSubject(c credential, id Identity) error {
	if id.Subject != c.Subject {
		return ragd.Forbidden("the %s account behind this sign-in changed; sign in again", id.Provider)
	}
	return nil
}

// tokenError is the ragd error for a failed token request: Forbidden when
// the provider refused (its OAuth error code named, never its body),
// Unavailable when it could not be reached or failed.
func tokenError(provider string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
		code := re.ErrorCode
		if code == "" {
			code = re.Response.Status
		}
		return ragd.Forbidden("%s refused the sign-in (%s); sign in again", provider, code)
	}
	return ragd.Unavailable(provider, errors.New(scrub(err)))
}

// scrub keeps an error's text but what a RetrieveError carries of the
// answer's body.
func scrub(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return "token endpoint answered " + re.Response.Status
	}
	return err.Error()
}

// nonceFor is the OIDC nonce of a sign-in: derived from its PKCE challenge,
// so Exchange, which gets the verifier, can recompute it without ragd
// storing one more value; the verifier stays secret, so the nonce binds
// the ID token to this sign-in as a random one kept with the state would.
func nonceFor(challenge string) string {
	sum := sha256.Sum256([]byte("ragd-oidc-nonce\x00" + challenge))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
