package authn

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
)

// Authenticator guards HTTP handlers according to a Config.
type Authenticator struct {
	mode        Mode
	log         *slog.Logger
	verifier    verifier // nil when disabled
	scopes      []string // required of every token (jwt)
	resourceURL string   // "" = derive from the request
	authServers []string
	origins     *originPolicy
	public      []string
	operator    []string
	sessions    *sessions // nil until EnableSessions
	// issued verifies the tokens ragd issued (oauth mode, EnableOAuth),
	// whose endpoints oauthPaths need no token; offered are its scopes.
	issued     *issuedVerifier
	oauthPaths []string
	offered    []string
	// writeTool reports the MCP tools that need scope write (oauth mode).
	writeTool func(name string) bool
}

// New validates cfg and builds an Authenticator. In jwt mode the key set is
// fetched on the first request, so a slow authorization server does not
// delay start-up. Tokens of the form "env:VAR" are resolved here.
func New(cfg Config, log *slog.Logger) (*Authenticator, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mode, err := parseMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == "" && (len(cfg.Keys) > 0 || cfg.JWKSURL != "") {
		// Keys without a mode look like a mistake; failing open would hide it.
		return nil, errors.New("auth: keys or a JWKS URL are configured but mode is empty")
	}
	origins, err := newOriginPolicy(cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	resource, err := normalizeResourceURL(cfg.ResourceURL)
	if err != nil {
		return nil, err
	}
	a := &Authenticator{
		mode:        mode,
		log:         log,
		resourceURL: resource,
		authServers: slices.Clone(cfg.AuthorizationServers),
		origins:     origins,
		public:      slices.Clone(cfg.PublicPaths),
		operator:    slices.Clone(cfg.OperatorPaths),
	}
	if cfg.PublicPaths == nil {
		a.public = slices.Clone(DefaultPublicPaths)
	}
	if cfg.OperatorPaths == nil {
		a.operator = slices.Clone(DefaultOperatorPaths)
	}
	switch mode {
	case ModeStaticToken:
		v, err := newStaticVerifier(cfg.Keys)
		if err != nil {
			return nil, err
		}
		a.verifier = v
		log.Info("auth: static-token mode", "keys", v.names())
	case ModeJWT:
		v, err := newJWTVerifier(cfg, log)
		if err != nil {
			return nil, err
		}
		a.verifier = v
		a.scopes = slices.Clone(cfg.Scopes)
		if len(a.authServers) == 0 {
			a.authServers = []string{cfg.Issuer}
		}
		log.Info("auth: jwt mode", "issuer", cfg.Issuer, "audience", cfg.Audience, "jwks", cfg.JWKSURL, "scopes", a.scopes)
	case ModeOAuth:
		v := &issuedVerifier{}
		if len(cfg.Keys) > 0 {
			if v.static, err = newStaticVerifier(cfg.Keys); err != nil {
				return nil, err
			}
		}
		a.verifier = v
		log.Info("auth: oauth mode", "keys", v.names())
	default:
		log.Info("auth: disabled; only the Origin check applies")
	}
	return a, nil
}

// Mode reports the configured mode.
func (a *Authenticator) Mode() Mode { return a.mode }

// normalizeResourceURL checks the public base URL and drops a trailing
// slash, as MCP clients compare the metadata's resource byte for byte.
func normalizeResourceURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("auth: resource URL %q must be an absolute http(s) URL", s)
	}
	return strings.TrimSuffix(s, "/"), nil
}
