package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd"
)

// client is a registered client: dynamically (ID is ragd's) or by its
// metadata document (ID is the document's https URL).
type client struct {
	ID           string   `json:"client_id"`
	Name         string   `json:"client_name"`
	RedirectURIs []string `json:"redirect_uris"`
}

// The bounds of a registration.
const (
	maxRegistrationBytes = 16 << 10
	maxRedirectURIs      = 10
	maxURIBytes          = 2000
	maxClientNameRunes   = 100
)

// register is RFC 7591 dynamic registration, for clients without a
// metadata document: rate-limited per address, bounded, public (no
// secret), forgotten after ClientTTL unused.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	n, err := s.cfg.Store.Incr(r.Context(), s.cfg.Keys.OAuthRegistrations(digest(host)), time.Hour)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	if n > int64(s.cfg.RegistrationsPerHour) {
		w.Header().Set("Retry-After", "3600")
		oauthError(w, http.StatusTooManyRequests, "invalid_client_metadata", "too many registrations from this address; try again in an hour")
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if err != nil || len(body) > maxRegistrationBytes || json.Unmarshal(body, &meta) != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("the registration must be a JSON object of at most %d bytes", maxRegistrationBytes))
		return
	}
	c := client{ID: secret(18), Name: meta.ClientName, RedirectURIs: meta.RedirectURIs}
	if err := checkClient(c); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", err.Error())
		return
	}
	if err := s.save(r.Context(), s.cfg.Keys.OAuthClient(c.ID), c, s.cfg.ClientTTL); err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.log.InfoContext(r.Context(), "oauth: client registered", "client", c.Name, "redirects", len(c.RedirectURIs))
	writeJSON(w, http.StatusCreated, &oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: oauthex.ClientRegistrationMetadata{
			RedirectURIs: c.RedirectURIs, ClientName: c.Name, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		},
		ClientID: c.ID, ClientIDIssuedAt: s.cfg.Now(),
	})
}

// checkClient holds a client's metadata to ragd's bounds: 1 to 10
// redirect URIs, each https, a loopback http one (RFC 8252 §7.3) or a
// private-use scheme (§7.1), without fragment; a short name.
func checkClient(c client) error {
	if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirectURIs {
		return fmt.Errorf("a client needs 1 to %d redirect_uris", maxRedirectURIs)
	}
	for _, raw := range c.RedirectURIs {
		u, err := url.Parse(raw)
		switch {
		case err != nil || len(raw) > maxURIBytes || u.Fragment != "" || u.Scheme == "":
			return fmt.Errorf("redirect_uri %q is not an absolute URI without fragment of at most %d bytes", raw, maxURIBytes)
		case u.Scheme == "http" && !loopback(u):
			return fmt.Errorf("redirect_uri %q: plain http is for loopback addresses only", raw)
		case u.Scheme != "https" && u.Scheme != "http" && !strings.Contains(u.Scheme, "."):
			return fmt.Errorf("redirect_uri %q: a private-use scheme must be a reversed domain name (RFC 8252)", raw)
		}
	}
	if len([]rune(c.Name)) > maxClientNameRunes || disguising(c.Name) {
		return fmt.Errorf("client_name must be at most %d characters, none disguising", maxClientNameRunes)
	}
	return nil
}

// disguising: s holds a character that disguises a name.
func disguising(s string) bool {
	_, bad := ragd.Disguising(s)
	return bad
}

// loopback: u's host is a loopback IP literal or localhost.
func loopback(u *url.URL) bool {
	h := u.Hostname()
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return h == "localhost"
}

// redirectAllowed: uri is one of c's redirect URIs exactly, or differs
// from a loopback one only in its port (RFC 8252 §7.3).
func (c client) redirectAllowed(uri string) bool {
	if uri == "" {
		return false
	}
	if slices.Contains(c.RedirectURIs, uri) {
		return true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || !loopback(u) {
		return false
	}
	for _, reg := range c.RedirectURIs {
		ru, err := url.Parse(reg)
		if err == nil && ru.Scheme == "http" && loopback(ru) && ru.Hostname() == u.Hostname() &&
			ru.Path == u.Path && ru.RawQuery == u.RawQuery && u.User == nil {
			return true
		}
	}
	return false
}

// client finds the client id names: a metadata document's URL (fetched
// or cached) or a dynamic registration, whose life a use renews. A
// client id naming neither is ragd.Invalid.
func (s *Server) client(ctx context.Context, id string) (client, error) {
	if strings.HasPrefix(id, "https://") {
		return s.document(ctx, id)
	}
	var c client
	ok, err := s.load(ctx, s.cfg.Keys.OAuthClient(id), &c)
	switch {
	case err != nil:
		return client{}, err
	case !ok:
		return client{}, ragd.Invalid("client_id", "value_error", "unknown client_id: register the client first")
	}
	if err := s.save(ctx, s.cfg.Keys.OAuthClient(id), c, s.cfg.ClientTTL); err != nil {
		return client{}, err
	}
	return c, nil
}

// document reads the Client ID Metadata Document at id through the
// address guard, bounded in size and time, and caches it.
func (s *Server) document(ctx context.Context, id string) (client, error) {
	key := s.cfg.Keys.OAuthClientDocument(digest(id))
	var c client
	if ok, err := s.load(ctx, key, &c); err != nil || ok {
		return c, err
	}
	if u, err := url.Parse(id); err != nil || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return client{}, ragd.Invalid("client_id", "value_error", "a client_id URL must be https with a path, without fragment or credentials")
	}
	fetchCtx, cancel := context.WithTimeout(ctx, s.cfg.DocumentTimeout)
	defer cancel()
	body, err := s.cfg.Fetcher.FetchJSON(fetchCtx, id, s.cfg.DocumentMaxBytes)
	if err != nil {
		return client{}, ragd.Invalid("client_id", "value_error", "cannot use the client's metadata document: %s", fetchMessage(err))
	}
	var doc struct {
		client
		AuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return client{}, ragd.Invalid("client_id", "value_error", "the client's metadata document is not a JSON object")
	}
	switch {
	case doc.ID != id:
		return client{}, ragd.Invalid("client_id", "value_error", "the metadata document's client_id %q differs from its URL", doc.ID)
	case doc.AuthMethod != "" && doc.AuthMethod != "none":
		return client{}, ragd.Invalid("client_id", "value_error", "token_endpoint_auth_method %q is not supported (only none)", doc.AuthMethod)
	}
	if err := checkClient(doc.client); err != nil {
		return client{}, ragd.Invalid("client_id", "value_error", "the client's metadata document: %v", err)
	}
	return doc.client, s.save(ctx, key, doc.client, s.cfg.DocumentCacheTTL)
}

// fetchMessage is what of a fetch error a person may read.
func fetchMessage(err error) string {
	if m := ragd.PublicMessage(err); m != "" {
		return m
	}
	return "the fetch failed or took too long"
}
