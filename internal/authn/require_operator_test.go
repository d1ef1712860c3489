package authn_test

import (
	"context"
	"testing"

	"ragd"
	"ragd/internal/authn"
)

// Only an operator (group "*", no namespace limit), or no auth, may change
// every namespace at once, whether a key or a JWT made it one: a
// namespace-limited principal, and one with other groups, are forbidden.
func TestRequireOperator(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *authn.Principal
		ok   bool
	}{
		{"auth disabled", nil, true},
		{"operator key", &authn.Principal{Name: "ops", Key: true, Groups: []string{"*"}}, true},
		{"operator jwt", &authn.Principal{Name: "carol", Groups: []string{"eng", "*"}}, true},
		{"key without groups", &authn.Principal{Name: "plain", Key: true}, false},
		{"key with groups, all namespaces", &authn.Principal{Name: "wide", Key: true, Groups: []string{"eng"}}, false},
		{"limited key in group *", &authn.Principal{Name: "team", Key: true, Namespaces: []string{"docs"}, Groups: []string{"*"}}, false},
		{"jwt, all namespaces", &authn.Principal{Name: "alice"}, false},
		{"jwt, limited", &authn.Principal{Name: "bob", Namespaces: []string{"docs"}, Groups: []string{"*"}}, false},
	} {
		ctx := context.Background()
		if c.p != nil {
			ctx = authn.WithPrincipal(ctx, c.p)
		}
		err := authn.RequireOperator(ctx, "switching the embedder")
		if (err == nil) != c.ok || (err != nil && ragd.KindOf(err) != ragd.KindForbidden) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
