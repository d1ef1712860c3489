package authn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"ragd"
)

// staticKey is a configured key with its token reduced to a digest: the
// Authenticator never holds the secret itself.
type staticKey struct {
	name       string
	hash       tokenHash
	namespaces []string
	groups     []string
	roots      []string
}

// staticVerifier checks bearer tokens against the configured keys.
type staticVerifier struct{ keys []staticKey }

func newStaticVerifier(keys []Key) (*staticVerifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("auth: static-token mode needs at least one key")
	}
	v := &staticVerifier{}
	names := map[string]bool{}
	for i, k := range keys {
		name := k.Name
		if name == "" {
			name = fmt.Sprintf("key-%d", i+1)
		}
		if names[name] {
			return nil, fmt.Errorf("auth: duplicate key name %q", name)
		}
		names[name] = true
		token, err := resolveToken(name, k.Token)
		if err != nil {
			return nil, err
		}
		if token == "" {
			return nil, fmt.Errorf("auth: key %q has an empty token", name)
		}
		h := hashToken(token)
		for _, o := range v.keys {
			if o.hash.equal(h) {
				// Which key a request used would be ambiguous.
				return nil, fmt.Errorf("auth: keys %q and %q have the same token", o.name, name)
			}
		}
		for _, g := range k.Groups {
			if err := ragd.CheckGroup("groups", g); err != nil {
				return nil, fmt.Errorf("auth: key %q: %v", name, err)
			}
		}
		v.keys = append(v.keys, staticKey{name: name, hash: h, namespaces: slices.Clone(k.Namespaces), groups: slices.Clone(k.Groups), roots: slices.Clone(k.Roots)})
	}
	return v, nil
}

func (v *staticVerifier) verify(_ context.Context, token string) (*Principal, *sdkauth.TokenInfo, error) {
	h := hashToken(token)
	var match *staticKey
	// Compare against every key without stopping early so the time taken
	// does not reveal which key (if any) matched.
	for i := range v.keys {
		if v.keys[i].hash.equal(h) && match == nil {
			match = &v.keys[i]
		}
	}
	if match == nil {
		return nil, nil, sdkauth.ErrInvalidToken
	}
	p := &Principal{Name: match.name, Namespaces: slices.Clone(match.namespaces), Groups: slices.Clone(match.groups), Key: true,
		Roots: slices.Clone(match.roots)}
	// Static keys do not expire; the MCP SDK uses UserID to pin sessions.
	return p, &sdkauth.TokenInfo{UserID: "key:" + match.name}, nil
}

// names lists the key names for logs.
func (v *staticVerifier) names() []string {
	out := make([]string, len(v.keys))
	for i, k := range v.keys {
		out[i] = k.name
	}
	return out
}

// byName returns the key named name, or nil (also on a nil verifier).
func (v *staticVerifier) byName(name string) *staticKey {
	if v == nil {
		return nil
	}
	for i := range v.keys {
		if v.keys[i].name == name {
			return &v.keys[i]
		}
	}
	return nil
}
