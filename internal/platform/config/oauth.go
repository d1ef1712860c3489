package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// AuthOAuth is auth.oauth: ragd as the OAuth 2.1 authorization server of
// its own resource (auth.mode oauth), signing people in upstream (GitHub
// or an OpenID Connect provider) and mapping them to namespaces and groups
// by grants. The section lives in the file only (its lists of grants have
// no environment form); client_secret may be env:VAR.
type AuthOAuth struct {
	// Provider is github or oidc.
	Provider string `yaml:"provider"`
	// ClientID and ClientSecret are ragd's own OAuth client at the
	// upstream provider (a GitHub OAuth app, an OIDC client); the secret
	// may be env:VAR.
	ClientID     string `yaml:"client_id"`
	ClientSecret string `yaml:"client_secret"`
	// GitHubURL is GitHub's web address (default https://github.com; a
	// GitHub Enterprise server's otherwise).
	GitHubURL string `yaml:"github_url"`
	// GitHubAPIURL is GitHub's REST API (default https://api.github.com,
	// or <github_url>/api/v3 when github_url names an Enterprise server).
	GitHubAPIURL string `yaml:"github_api_url"`
	// IssuerURL is the OIDC provider's issuer (discovery at
	// <issuer_url>/.well-known/openid-configuration).
	IssuerURL string `yaml:"issuer_url"`
	// AllowedOrgs (GitHub) and AllowedDomains (OIDC, the email's domain)
	// decide who may sign in at all; empty: anyone a grant matches.
	AllowedOrgs    []string `yaml:"allowed_orgs"`
	AllowedDomains []string `yaml:"allowed_domains"`
	// GroupsClaim is the OIDC claim listing a person's groups (default
	// groups).
	GroupsClaim string `yaml:"groups_claim"`
	// Grants map a GitHub org/team (or org) or an OIDC group to
	// namespaces and groups; a person gets the union of the matching ones.
	Grants []AuthGrant `yaml:"grants"`
	// AccessTokenTTL is how long an access token ragd issues lasts
	// (default 10m); RefreshTokenTTL how long a refresh token may go
	// unused (default 720h), and each refresh re-checks the person
	// upstream.
	AccessTokenTTL  time.Duration `yaml:"access_token_ttl"`
	RefreshTokenTTL time.Duration `yaml:"refresh_token_ttl"`
	// ClientTTL is how long a dynamically registered client may go unused
	// before it is forgotten (default 720h).
	ClientTTL time.Duration `yaml:"client_ttl"`
	// RegistrationsPerHour bounds dynamic registrations from one address
	// (default 20).
	RegistrationsPerHour int `yaml:"registrations_per_hour"`
}

// AuthGrant maps an upstream team, org or group to what its members get.
type AuthGrant struct {
	// Match is a GitHub "org/team-slug" or "org", or an OIDC group, or
	// (OIDC only) "@domain": everyone whose verified email is at domain.
	Match string `yaml:"match"`
	// Namespaces the members may use; "*" is every namespace.
	Namespaces []string `yaml:"namespaces"`
	// Groups whose documents the members see besides open ones.
	Groups []string `yaml:"groups"`
}

// The auth.oauth defaults.
const (
	DefaultGitHubURL    = "https://github.com"
	DefaultGitHubAPIURL = "https://api.github.com"
)

// defaultOAuth is auth.oauth before the file is read.
func defaultOAuth() AuthOAuth {
	return AuthOAuth{GitHubURL: DefaultGitHubURL, GroupsClaim: "groups", AllowedOrgs: []string{}, AllowedDomains: []string{}, Grants: []AuthGrant{},
		AccessTokenTTL: 10 * time.Minute, RefreshTokenTTL: 720 * time.Hour, ClientTTL: 720 * time.Hour, RegistrationsPerHour: 20}
}

// APIURL is GitHub's REST API: github_api_url, else api.github.com for
// github.com and <github_url>/api/v3 for an Enterprise server.
func (o AuthOAuth) APIURL() string {
	switch {
	case o.GitHubAPIURL != "":
		return strings.TrimSuffix(o.GitHubAPIURL, "/")
	case o.GitHubURL == "" || strings.TrimSuffix(o.GitHubURL, "/") == DefaultGitHubURL:
		return DefaultGitHubAPIURL
	}
	return strings.TrimSuffix(o.GitHubURL, "/") + "/api/v3"
}

// validate checks auth.oauth for auth.mode oauth, naming each problem.
func (o AuthOAuth) validate() []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.Provider == "github" || o.Provider == "oidc", "auth.oauth.provider must be github or oidc, not %q", o.Provider)
	check(o.ClientID != "", "auth.mode oauth needs auth.oauth.client_id (ragd's client at the provider)")
	check(o.ClientSecret != "", "auth.mode oauth needs auth.oauth.client_secret (or env:VAR)")
	if o.Provider == "oidc" {
		check(absoluteHTTP(o.IssuerURL), "auth.oauth.provider oidc needs auth.oauth.issuer_url, an absolute http(s) URL, not %q", o.IssuerURL)
		check(len(o.AllowedOrgs) == 0, "auth.oauth.allowed_orgs is for provider github; with oidc, allowed_domains decides who may sign in")
	}
	if o.Provider == "github" {
		check(absoluteHTTP(o.GitHubURL), "auth.oauth.github_url must be an absolute http(s) URL, not %q", o.GitHubURL)
		check(o.GitHubAPIURL == "" || absoluteHTTP(o.GitHubAPIURL), "auth.oauth.github_api_url must be an absolute http(s) URL, not %q", o.GitHubAPIURL)
		check(len(o.AllowedDomains) == 0, "auth.oauth.allowed_domains is for provider oidc (GitHub gives no verified domain); with github, allowed_orgs decides who may sign in")
	}
	check(len(o.Grants) > 0, "auth.mode oauth needs auth.oauth.grants: with none, nobody who signs in gets any access")
	for i, g := range o.Grants {
		check(strings.TrimSpace(g.Match) != "", "auth.oauth.grants[%d].match is empty", i)
		check(len(g.Namespaces) > 0, "auth.oauth.grants[%d] (%s) lists no namespaces (\"*\" is every namespace)", i, g.Match)
		check(o.Provider != "github" || !strings.HasPrefix(g.Match, "@"), "auth.oauth.grants[%d] (%s): an @domain grant needs provider oidc; GitHub grants match org/team or org", i, g.Match)
	}
	check(o.AccessTokenTTL >= time.Minute && o.AccessTokenTTL <= time.Hour, "auth.oauth.access_token_ttl must be between 1m and 1h, not %s", o.AccessTokenTTL)
	check(o.RefreshTokenTTL >= o.AccessTokenTTL, "auth.oauth.refresh_token_ttl must be at least access_token_ttl, not %s", o.RefreshTokenTTL)
	check(o.ClientTTL >= time.Hour, "auth.oauth.client_ttl must be at least 1h, not %s", o.ClientTTL)
	check(o.RegistrationsPerHour > 0, "auth.oauth.registrations_per_hour must be positive")
	return errs
}

// absoluteHTTP: s is an absolute http(s) URL with a host.
func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
