package authn

import (
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// pick chooses the key for a token header. A token without kid is accepted
// only when the set has exactly one key usable for alg, as there is then no
// ambiguity. A key that declares an alg must match the token's, which stops
// a key meant for one algorithm being used with another.
func pick(keys []jose.JSONWebKey, kid, alg string) (any, error) {
	var found []jose.JSONWebKey
	for _, k := range keys {
		if kid != "" && k.KeyID != kid {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		found = append(found, k)
	}
	switch {
	case len(found) == 1:
		return found[0].Key, nil
	case len(found) == 0 && kid != "":
		return nil, fmt.Errorf("unknown signing key %q", kid)
	case len(found) == 0:
		return nil, fmt.Errorf("no signing key for %s", alg)
	case kid == "":
		return nil, errors.New("token has no kid and the key set has several keys")
	}
	// Duplicate kids: the first one wins, as other JOSE libraries do.
	return found[0].Key, nil
}
