package authn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// stringList reads a claim holding a JSON array of strings or one string of
// space- or comma-separated values. It returns nil when the claim is absent.
func stringList(claims jwt.MapClaims, name string) ([]string, error) {
	raw, ok := claims[name]
	if !ok {
		return nil, nil
	}
	switch v := raw.(type) {
	case nil:
		return []string{}, nil // present: null must not read as "all"
	case string:
		return splitList(v), nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("claim %q must hold strings", name)
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("claim %q must be a string or an array of strings", name)
}

func splitList(s string) []string {
	out := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	if out == nil {
		out = []string{} // present but empty, distinct from absent
	}
	return out
}

// tokenScopes reads "scope" (RFC 9068, space-separated) or, as some
// providers send, "scp" (string or array).
func tokenScopes(claims jwt.MapClaims) ([]string, error) {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s), nil
	}
	return stringList(claims, "scp")
}

// missingScopes lists the required scopes missing from have.
func missingScopes(have, required []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(have, s) {
			missing = append(missing, s)
		}
	}
	return missing
}
