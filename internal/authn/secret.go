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
	name, ok := strings.CutPrefix(token, envPrefix)
	if !ok {
		return token, nil
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("auth: key %q: environment variable %s is empty or unset", keyName, name)
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
