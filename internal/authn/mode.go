package authn

import "fmt"

// Mode selects how requests are authenticated.
type Mode string

// The modes.
const (
	// ModeDisabled lets every request through (the Origin check still applies).
	ModeDisabled Mode = "disabled"
	// ModeStaticToken accepts the bearer tokens listed in Config.Keys.
	ModeStaticToken Mode = "static-token"
	// ModeJWT accepts JWTs signed by a key from Config.JWKSURL.
	ModeJWT Mode = "jwt"
	// ModeOAuth accepts the access tokens ragd's own authorization server
	// (package oauth, EnableOAuth) issued, and the static keys of Config.Keys.
	ModeOAuth Mode = "oauth"
)

// parseMode resolves the empty mode to disabled and rejects unknown ones.
func parseMode(m Mode) (Mode, error) {
	switch m {
	case "":
		return ModeDisabled, nil
	case ModeDisabled, ModeStaticToken, ModeJWT, ModeOAuth:
		return m, nil
	}
	return "", fmt.Errorf("auth: unknown mode %q (want disabled, static-token, jwt or oauth)", string(m))
}
