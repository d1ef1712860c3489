package authn

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"
)

// envPrefix marks a token to be read from an environment variable, so
// config files need not hold secrets.
const envPrefix = "env:"

// resolveToken returns the token itself or the value of the variable it
// names. Errors name the key, never the token.
func resolveToken(keyName, token string) (string, error) {
	return ResolveSecret(fmt.Sprintf("key %q", keyName), token)
}

// ResolveSecret returns a secret setting's value: the value itself, or
// the environment variable an "env:VAR" value names. Errors name the
// setting (what), never the secret.
func ResolveSecret(what, value string) (string, error) {
	name, ok := strings.CutPrefix(value, envPrefix)
	if !ok {
		return value, nil
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("auth: %s: environment variable %s is empty or unset", what, name)
	}
	return v, nil
}

// tokenHash is a fixed-size digest of a token; comparing digests keeps the
// comparison time independent of the tokens' lengths.
type tokenHash [sha256.Size]byte

func hashToken(token string) tokenHash { return sha256.Sum256([]byte(token)) }

// equal compares in constant time.
func (h tokenHash) equal(o tokenHash) bool {
	return subtle.ConstantTimeCompare(h[:], o[:]) == 1
}
