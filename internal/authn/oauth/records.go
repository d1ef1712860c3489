package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// request is what a client asked at /authorize, carried through the
// sign-in, the consent and the code to /token.
type request struct {
	ClientID    string   `json:"client_id"`
	ClientName  string   `json:"client_name"`
	RedirectURI string   `json:"redirect_uri"`
	State       string   `json:"state"`
	Challenge   string   `json:"code_challenge"`
	Scopes      []string `json:"scopes"`
}

// pending is an authorization waiting for the upstream sign-in, keyed by
// ragd's own state; Verifier is ragd's PKCE verifier upstream.
type pending struct {
	request
	Verifier string `json:"verifier"`
}

// ask is an authorization waiting on the consent page.
type ask struct {
	request
	Person     Person `json:"person"`
	Credential []byte `json:"credential"`
	// CSRF is the digest of the token the page's form and cookie carry.
	CSRF string `json:"csrf"`
}

// code is an authorization code's record: unused, then marked Used with
// the family it started.
type code struct {
	request
	Person     Person `json:"person"`
	Credential []byte `json:"credential"`
	Used       bool   `json:"used,omitempty"`
	Family     string `json:"family,omitempty"`
}

// family is one grant's tokens: access tokens name it (fam), the refresh
// token is <ID>.<secret> and Refresh the digest of the current secret;
// Previous are the digests of rotated ones, whose reuse revokes the family.
type family struct {
	ID         string    `json:"id"`
	ClientID   string    `json:"client_id"`
	Scopes     []string  `json:"scopes"`
	Person     Person    `json:"person"`
	Credential []byte    `json:"credential"`
	Refresh    string    `json:"refresh"`
	Previous   []string  `json:"previous,omitempty"`
	Created    time.Time `json:"created"`
}

// maxPrevious bounds the rotated refresh digests a family remembers.
const maxPrevious = 32

// secret returns n random bytes as unpadded base64url.
func secret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest is the hex sha256 of s: how secrets appear in keys and records.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sameDigest compares two digests in constant time.
func sameDigest(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// s256 is the PKCE S256 challenge of verifier (RFC 7636 §4.2).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// load reads key's JSON record into v; false when there is none.
func (s *Server) load(ctx context.Context, key string, v any) (bool, error) {
	raw, ok, err := s.cfg.Store.Get(ctx, key)
	if err != nil || !ok {
		return false, err
	}
	return true, json.Unmarshal(raw, v)
}

// take reads key's JSON record into v and deletes it (single use).
func (s *Server) take(ctx context.Context, key string, v any) (bool, error) {
	raw, ok, err := s.cfg.Store.Take(ctx, key)
	if err != nil || !ok {
		return false, err
	}
	return true, json.Unmarshal(raw, v)
}

// save writes v as JSON under key for ttl.
func (s *Server) save(ctx context.Context, key string, v any, ttl time.Duration) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("oauth: encoding a record: %w", err)
	}
	return s.cfg.Store.Set(ctx, key, raw, ttl)
}

// writeJSON answers v as JSON, uncached (RFC 6749 §5.1).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError answers an OAuth error (RFC 6749 §5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}
