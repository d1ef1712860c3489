package oauth

import (
	"context"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// IssueForTest starts a token family for p and signs an access token of it
// with the current key, issued at now for audience aud (the issuer when
// ""), as a replica with another clock or a server of another resource
// would.
func IssueForTest(ctx context.Context, s *Server, p Person, scopes []string, now time.Time, aud string) (string, error) {
	f := family{ID: secret(18), ClientID: "test", Scopes: scopes, Person: p, Refresh: digest(secret(8)), Created: now}
	if err := s.save(ctx, s.cfg.Keys.OAuthFamily(f.ID), f, s.cfg.RefreshTTL); err != nil {
		return "", err
	}
	key, err := s.keys.current(ctx)
	if err != nil {
		return "", err
	}
	if aud == "" {
		aud = s.issuer
	}
	claims := accessClaims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: s.issuer, Subject: p.Subject, Audience: jwt.ClaimStrings{aud},
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.AccessTTL)), IssuedAt: jwt.NewNumericDate(now)},
		Scope: "read", Family: f.ID, Name: p.Name,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["kid"] = key.kid
	return t.SignedString(key.priv)
}

// Trusts reports whether s would accept token from memory, asking Redis
// nothing.
func (s *Server) Trusts(token string) bool {
	c, ok := s.checked.token(digest(token))
	return ok && s.checked.isLive(c.Family, s.cfg.Now())
}
