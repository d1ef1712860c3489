package oauth

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd/internal/authn"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

// The endpoints, under the issuer (auth.resource_url).
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	AuthorizePath = "/oauth/authorize"
	CallbackPath  = "/oauth/callback"
	ConsentPath   = "/oauth/consent"
	TokenPath     = "/oauth/token"
	RegisterPath  = "/oauth/register"
	RevokePath    = "/oauth/revoke"
	JWKSPath      = "/oauth/jwks"
)

// Paths are every path the server answers, which need no token.
var Paths = []string{MetadataPath, AuthorizePath, CallbackPath, ConsentPath, TokenPath, RegisterPath, RevokePath, JWKSPath}

// Scopes are the scopes ragd defines (authn's, which say what each
// allows), in the order the consent page shows them.
var Scopes = []string{authn.ScopeRead, authn.ScopeWrite, authn.ScopeOperator}

// DefaultScopes are granted when a client asks for none.
var DefaultScopes = []string{authn.ScopeRead, authn.ScopeWrite}

// The bounds no setting changes.
const (
	// CodeTTL is an authorization code's life.
	CodeTTL = 60 * time.Second
	// pendingTTL bounds the sign-in upstream and the consent page.
	pendingTTL = 10 * time.Minute
	// consentTTL is how long an Allow is remembered for a client and person.
	consentTTL = 30 * 24 * time.Hour
)

// SignIn signs people in upstream and says what they get; package
// upstream's Provider with its grants (Upstream) is the real one.
type SignIn interface {
	// AuthCodeURL is where the browser goes to sign in; redirectURI is
	// ragd's fixed callback.
	AuthCodeURL(state, codeChallenge, redirectURI string) string
	// Exchange trades the upstream code for the person and an opaque
	// credential ragd keeps (never logs) to Recheck them later. A person
	// outside the allowed orgs or domains, or matching no grant, is a
	// ragd.Error of KindForbidden.
	Exchange(ctx context.Context, code, verifier, redirectURI string) (Person, []byte, error)
	// Recheck reads the person again (at refresh), with a possibly renewed
	// credential; errors as Exchange's.
	Recheck(ctx context.Context, credential []byte) (Person, []byte, error)
}

// Person is who signed in and what their grants give them.
type Person struct {
	// Subject is the stable upstream id, e.g. "github:583231".
	Subject string `json:"sub"`
	// Name is the login shown and logged (the principal's name).
	Name string `json:"name"`
	// Namespaces the person may use; nil is every namespace.
	Namespaces []string `json:"namespaces,omitempty"`
	// Groups decide the documents the person sees.
	Groups []string `json:"groups,omitempty"`
}

// Fetcher reads a Client ID Metadata Document: guard.Fetcher's FetchJSON.
type Fetcher interface {
	FetchJSON(ctx context.Context, url string, maxBytes int64) ([]byte, error)
}

// Config configures a Server.
type Config struct {
	// Issuer is the public base URL (auth.resource_url): the metadata's
	// issuer, the tokens' iss and aud, the endpoints' base.
	Issuer string
	// SignIn is the upstream sign-in.
	SignIn SignIn
	// Fetcher reads Client ID Metadata Documents.
	Fetcher Fetcher
	// Store and Keys hold every record.
	Store *kv.Store
	Keys  keyspace.Keys
	// AccessTTL (default 10m), RefreshTTL (default 720h), ClientTTL
	// (default 720h) and RegistrationsPerHour (default 20): auth.oauth's.
	AccessTTL, RefreshTTL, ClientTTL time.Duration
	RegistrationsPerHour             int
	// DocumentMaxBytes (default 5 KiB), DocumentTimeout (default 5 s)
	// and DocumentCacheTTL (default 1h) bound client metadata documents.
	DocumentMaxBytes int64
	DocumentTimeout  time.Duration
	DocumentCacheTTL time.Duration
	// KeyRotation is how long a signing key signs (default 24h).
	KeyRotation time.Duration
	// Log gets what happened, never a token.
	Log *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Server is ragd's authorization server.
type Server struct {
	cfg     Config
	issuer  string
	log     *slog.Logger
	keys    *signingKeys
	checked *checked
	stop    context.CancelFunc
}

// New checks cfg and returns the Server, which listens for revocations
// until Close.
func New(cfg Config) (*Server, error) {
	u, err := url.Parse(cfg.Issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("oauth: the issuer (auth.resource_url) must be an absolute http(s) URL")
	}
	if cfg.SignIn == nil || cfg.Store == nil || cfg.Fetcher == nil {
		return nil, errors.New("oauth: a sign-in, a fetcher and a store are required")
	}
	cfg.AccessTTL = cmp.Or(cfg.AccessTTL, 10*time.Minute)
	cfg.RefreshTTL = cmp.Or(cfg.RefreshTTL, 720*time.Hour)
	cfg.ClientTTL = cmp.Or(cfg.ClientTTL, 720*time.Hour)
	cfg.RegistrationsPerHour = cmp.Or(cfg.RegistrationsPerHour, 20)
	cfg.DocumentMaxBytes = cmp.Or(cfg.DocumentMaxBytes, 5<<10)
	cfg.DocumentTimeout = cmp.Or(cfg.DocumentTimeout, 5*time.Second)
	cfg.DocumentCacheTTL = cmp.Or(cfg.DocumentCacheTTL, time.Hour)
	cfg.KeyRotation = cmp.Or(cfg.KeyRotation, 24*time.Hour)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, issuer: strings.TrimSuffix(cfg.Issuer, "/"), log: cfg.Log, checked: newChecked()}
	s.keys = &signingKeys{s: s}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.listen(ctx)
	return s, nil
}

// Issuer is the issuer identifier (the public base URL).
func (s *Server) Issuer() string { return s.issuer }

// Handler answers every path in Paths.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+MetadataPath, s.metadata)
	mux.HandleFunc("GET "+AuthorizePath, s.authorize)
	mux.HandleFunc("GET "+CallbackPath, s.callback)
	mux.HandleFunc("POST "+ConsentPath, s.consent)
	mux.HandleFunc("POST "+TokenPath, s.token)
	mux.HandleFunc("POST "+RegisterPath, s.register)
	mux.HandleFunc("POST "+RevokePath, s.revoke)
	mux.HandleFunc("GET "+JWKSPath, s.jwks)
	return mux
}

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, &oauthex.AuthServerMeta{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + AuthorizePath,
		TokenEndpoint:                              s.issuer + TokenPath,
		JWKSURI:                                    s.issuer + JWKSPath,
		RegistrationEndpoint:                       s.issuer + RegisterPath,
		RevocationEndpoint:                         s.issuer + RevokePath,
		ScopesSupported:                            Scopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	})
}

// ownResource reports whether an RFC 8707 resource names this server: its
// base URL or a path under it (its /mcp endpoint). Absent means this
// server.
func (s *Server) ownResource(resource string) bool {
	r := strings.TrimSuffix(resource, "/")
	return resource == "" || r == s.issuer || strings.HasPrefix(r, s.issuer+"/")
}
