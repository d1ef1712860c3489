package authn

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"

	"ragd"
)

// resolveToken returns the token itself or the value of the variable it
// names. Errors name the key, never the token.
func resolveToken(keyName, token string) (string, error) {
	return ResolveSecret(fmt.Sprintf("key %q", keyName), token)
}

// ResolveSecret is ragd.ResolveSecret, its errors marked as auth's.
func ResolveSecret(what, value string) (string, error) {
	v, err := ragd.ResolveSecret(what, value)
	if err != nil {
		return "", fmt.Errorf("auth: %w", err)
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
