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
)

// parseMode resolves the empty mode to disabled and rejects unknown ones.
func parseMode(m Mode) (Mode, error) {
	switch m {
	case "":
		return ModeDisabled, nil
	case ModeDisabled, ModeStaticToken, ModeJWT:
		return m, nil
	}
	return "", fmt.Errorf("auth: unknown mode %q (want disabled, static-token or jwt)", string(m))
}
