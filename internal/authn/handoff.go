package authn

import (
	"context"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

type verifiedKey struct{}

func withVerified(ctx context.Context, ti *sdkauth.TokenInfo) context.Context {
	return context.WithValue(ctx, verifiedKey{}, ti)
}

// handoff wraps next in the SDK's own bearer middleware, fed the TokenInfo
// we already verified: the SDK keeps its context key private, and its MCP
// handler reads TokenInfo from there (req.Extra.TokenInfo, session pinning).
// Our middleware answers all failures itself, so this one never rejects.
func handoff(next http.Handler) http.Handler {
	verified := func(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if ti, ok := ctx.Value(verifiedKey{}).(*sdkauth.TokenInfo); ok {
			return ti, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}
	return sdkauth.RequireBearerToken(verified, &sdkauth.RequireBearerTokenOptions{
		// Static keys carry no expiry.
		AllowMissingExpiration: true,
		// Expiry was checked already, with leeway; the margin keeps a token
		// expiring between the two checks from failing here.
		ClockSkew: jwtLeeway + time.Minute,
	})(next)
}
