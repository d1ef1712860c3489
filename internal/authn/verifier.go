package authn

import (
	"context"
	"errors"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// verifier checks one bearer token. Errors wrap sdkauth.ErrInvalidToken when
// the token is at fault (401) or errUnavailable when the keys to check it
// could not be had (503); their text is safe to show the client.
type verifier interface {
	verify(ctx context.Context, token string) (*Principal, *sdkauth.TokenInfo, error)
}

// errUnavailable marks a failure of the key source rather than of the token,
// so a JWKS outage is not reported to clients as a bad token.
var errUnavailable = errors.New("authorization server keys are unavailable")
