package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"ragd/internal/authn/oauth"
	"ragd/internal/authn/upstream"
	"ragd/internal/ingest/guard"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

// enableOAuth makes ragd the authorization server of its own resource in
// auth.mode oauth: the upstream provider auth.oauth names, the grants,
// the server keeping its state in st, client metadata documents read
// through fetcher (URL ingest's address guard), and the middleware taking
// its tokens, the MCP tools not marked read-only needing scope write.
func (a *App) enableOAuth(ctx context.Context, st *kv.Store, keys keyspace.Keys, fetcher *guard.Fetcher, log *slog.Logger) error {
	c := a.Config.Auth
	if c.Mode != "oauth" {
		return nil
	}
	ucfg := UpstreamConfig(c.OAuth)
	provider, err := upstream.New(ctx, ucfg)
	if err != nil {
		return fmt.Errorf("auth.oauth: %w", err)
	}
	as, err := oauth.New(oauth.Config{Issuer: Issuer(a.Config), SignIn: oauth.Upstream(provider, ucfg), Fetcher: fetcher, Store: st, Keys: keys,
		AccessTTL: c.OAuth.AccessTokenTTL, RefreshTTL: c.OAuth.RefreshTokenTTL, ClientTTL: c.OAuth.ClientTTL,
		RegistrationsPerHour: c.OAuth.RegistrationsPerHour, Log: log})
	if err != nil {
		return err
	}
	tools, err := a.MCP.Definitions(ctx)
	if err != nil {
		return fmt.Errorf("auth.oauth: listing the MCP tools: %w", err)
	}
	readOnly := map[string]bool{}
	for _, t := range tools {
		readOnly[t.Name] = t.Annotations != nil && t.Annotations.ReadOnlyHint
	}
	a.OAuth = as
	log.Info("auth: ragd is its own authorization server", "issuer", as.Issuer(), "provider", c.OAuth.Provider)
	return a.Auth.EnableOAuth(as, oauth.Paths, oauth.Scopes, func(name string) bool { return !readOnly[name] })
}

// UpstreamConfig is auth.oauth's upstream part.
func UpstreamConfig(o config.AuthOAuth) upstream.Config {
	u := upstream.Config{Provider: o.Provider, ClientID: o.ClientID, ClientSecret: o.ClientSecret, GitHubURL: o.GitHubURL,
		GitHubAPIURL: o.APIURL(), IssuerURL: o.IssuerURL, AllowedOrgs: o.AllowedOrgs, AllowedDomains: o.AllowedDomains, GroupsClaim: o.GroupsClaim}
	for _, g := range o.Grants {
		u.Grants = append(u.Grants, upstream.Grant{Match: g.Match, Namespaces: g.Namespaces, Groups: g.Groups})
	}
	return u
}

// Issuer is ragd's public base URL: auth.resource_url, else http://
// and http.addr (a missing host read as 127.0.0.1).
func Issuer(cfg config.Config) string {
	if cfg.Auth.ResourceURL != "" {
		return strings.TrimSuffix(cfg.Auth.ResourceURL, "/")
	}
	host, port, err := net.SplitHostPort(cfg.HTTP.Addr)
	if err != nil {
		return "http://" + cfg.HTTP.Addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
