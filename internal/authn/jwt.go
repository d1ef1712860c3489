package authn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// jwtLeeway tolerates clock drift between us and the authorization server.
const jwtLeeway = 30 * time.Second

// signingAlgs are the asymmetric algorithms accepted. HMAC is left out so a
// public key can never be used as an HMAC secret (algorithm confusion).
var signingAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// jwtVerifier validates JWT access tokens against the JWKS, issuer and audience.
type jwtVerifier struct {
	parser  *jwt.Parser
	keys    *jwksCache
	nsClaim string
	// groupsClaim names the claim holding the token's groups.
	groupsClaim string
}

func newJWTVerifier(cfg Config, log *slog.Logger) (*jwtVerifier, error) {
	var missing []string
	for _, f := range [][2]string{{"a JWKS URL", cfg.JWKSURL}, {"an issuer", cfg.Issuer}, {"an audience", cfg.Audience}} {
		if f[1] == "" {
			missing = append(missing, f[0])
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("auth: jwt mode needs %s", strings.Join(missing, ", "))
	}
	if u, err := url.Parse(cfg.JWKSURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("auth: JWKS URL %q must be an absolute http(s) URL", cfg.JWKSURL)
	}
	nsClaim := cfg.NamespaceClaim
	if nsClaim == "" {
		nsClaim = DefaultNamespaceClaim
	}
	return &jwtVerifier{
		parser: jwt.NewParser(
			jwt.WithValidMethods(signingAlgs),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithAudience(cfg.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(jwtLeeway),
		),
		keys:        newJWKSCache(cfg.JWKSURL, log),
		nsClaim:     nsClaim,
		groupsClaim: cmp.Or(cfg.GroupsClaim, DefaultGroupsClaim),
	}, nil
}

func (v *jwtVerifier) verify(ctx context.Context, token string) (*Principal, *sdkauth.TokenInfo, error) {
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return v.keys.key(ctx, kid, t.Method.Alg())
	})
	if errors.Is(err, errUnavailable) {
		return nil, nil, errUnavailable
	}
	if err != nil {
		// jwt's messages name the failed check, never the token itself.
		return nil, nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	}
	namespaces, err := stringList(claims, v.nsClaim)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	}
	if namespaces != nil && len(namespaces) == 0 {
		// An empty list would read as "all namespaces"; refuse rather than widen.
		return nil, nil, fmt.Errorf("%w: claim %q lists no namespaces", sdkauth.ErrInvalidToken, v.nsClaim)
	}
	groups, err := stringList(claims, v.groupsClaim)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	}
	scopes, err := tokenScopes(claims)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	}
	sub, _ := claims.GetSubject()
	name := sub
	// Client-credentials tokens may name only the client.
	for _, c := range []string{"client_id", "azp"} {
		if name == "" {
			name, _ = claims[c].(string)
		}
	}
	if name == "" {
		name = "jwt"
	}
	exp, _ := claims.GetExpirationTime() // required by the parser, so present
	p := &Principal{Name: name, Namespaces: namespaces, Scopes: scopes, Groups: groups}
	// The claims ride along for MCP handlers that want more than the principal.
	ti := &sdkauth.TokenInfo{Scopes: scopes, Expiration: exp.Time, UserID: name, Extra: map[string]any(claims)}
	return p, ti, nil
}
