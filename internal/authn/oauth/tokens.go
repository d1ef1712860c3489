package oauth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"ragd"
	"ragd/internal/authn"
)

// leeway tolerates clock drift between replicas.
const leeway = 30 * time.Second

// accessClaims are an access token's claims (RFC 9068's, and ragd's own).
type accessClaims struct {
	jwt.RegisteredClaims
	ClientID   string   `json:"client_id"`
	Scope      string   `json:"scope"`
	Family     string   `json:"fam"`
	Name       string   `json:"name"`
	Namespaces []string `json:"kb_names,omitempty"`
	Groups     []string `json:"groups,omitempty"`
}

// tokens is a /token answer (RFC 6749 §5.1).
type tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// issue signs an access token for f and returns it with the refresh
// token refresh.
func (s *Server) issue(ctx context.Context, f family, refresh string) (tokens, error) {
	key, err := s.keys.current(ctx)
	if err != nil {
		return tokens{}, err
	}
	now := s.cfg.Now()
	claims := accessClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   f.Person.Subject,
			Audience:  jwt.ClaimStrings{s.issuer},
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.AccessTTL)),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        secret(12),
		},
		ClientID: f.ClientID, Scope: strings.Join(f.Scopes, " "), Family: f.ID, Name: f.Person.Name,
		Namespaces: f.Person.Namespaces, Groups: f.Person.Groups,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["kid"] = key.kid
	t.Header["typ"] = "at+jwt"
	signed, err := t.SignedString(key.priv)
	if err != nil {
		return tokens{}, fmt.Errorf("oauth: signing: %w", err)
	}
	return tokens{AccessToken: signed, TokenType: "Bearer", ExpiresIn: int(s.cfg.AccessTTL / time.Second),
		RefreshToken: f.ID + "." + refresh, Scope: claims.Scope}, nil
}

// parse checks an access token's signature, issuer, audience and times,
// and returns its claims. Errors wrap sdkauth.ErrInvalidToken, or are
// Redis's (KindUnavailable).
func (s *Server) parse(ctx context.Context, token string) (*accessClaims, error) {
	claims := &accessClaims{}
	var unavailable error
	p := jwt.NewParser(jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(s.issuer), jwt.WithAudience(s.issuer),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(leeway), jwt.WithTimeFunc(s.cfg.Now))
	_, err := p.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, err := s.keys.byID(ctx, kid)
		if ragd.KindOf(err) == ragd.KindUnavailable {
			unavailable = err
		}
		return k, err
	})
	switch {
	case unavailable != nil:
		return nil, unavailable
	case err != nil:
		// jwt's messages name the failed check, never the token.
		return nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	case claims.Family == "":
		return nil, fmt.Errorf("%w: not an access token ragd issued", sdkauth.ErrInvalidToken)
	}
	return claims, nil
}

// Verify returns the principal an access token ragd issued stands for:
// the person's name, the namespaces and groups of their grants, the
// token's scopes (Principal.Scoped). A token of another issuer or
// audience, expired, or whose family was revoked wraps
// sdkauth.ErrInvalidToken; a Redis failure is KindUnavailable.
//
// A token verified before is not verified again (checked), and a family
// seen lately is not asked of Redis again while revocations are heard.
func (s *Server) Verify(ctx context.Context, token string) (*authn.Principal, *sdkauth.TokenInfo, error) {
	d, now := digest(token), s.cfg.Now()
	c, ok := s.checked.token(d)
	switch {
	case !ok:
		parsed, err := s.parse(ctx, token)
		if err != nil {
			return nil, nil, err
		}
		c = *parsed
		s.checked.remember(d, c)
	case now.After(c.ExpiresAt.Add(leeway)):
		return nil, nil, fmt.Errorf("%w: token has invalid claims: token is expired", sdkauth.ErrInvalidToken)
	}
	if !s.checked.isLive(c.Family, now) {
		_, ok, err := s.cfg.Store.Get(ctx, s.cfg.Keys.OAuthFamily(c.Family))
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w: the token was revoked", sdkauth.ErrInvalidToken)
		}
		s.checked.seen(c.Family, now)
	}
	scopes := strings.Fields(c.Scope)
	p := &authn.Principal{Name: c.Name, Namespaces: slices.Clone(c.Namespaces), Groups: slices.Clone(c.Groups), Scopes: scopes, Scoped: true}
	ti := &sdkauth.TokenInfo{Scopes: scopes, Expiration: c.ExpiresAt.Time, UserID: c.Subject}
	return p, ti, nil
}
