package auth_test

import (
	"context"
	"testing"

	"ragd"
	"ragd/auth"
)

// Only an operator key (or no auth) may change every namespace at once:
// a namespace-limited key and a JWT's principal are forbidden.
func TestRequireOperator(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *auth.Principal
		ok   bool
	}{
		{"auth disabled", nil, true},
		{"operator key", &auth.Principal{Name: "ops", Key: true}, true},
		{"limited key", &auth.Principal{Name: "team", Key: true, Namespaces: []string{"docs"}}, false},
		{"jwt, all namespaces", &auth.Principal{Name: "alice"}, false},
		{"jwt, limited", &auth.Principal{Name: "bob", Namespaces: []string{"docs"}}, false},
	} {
		ctx := context.Background()
		if c.p != nil {
			ctx = auth.WithPrincipal(ctx, c.p)
		}
		err := auth.RequireOperator(ctx, "switching the embedder")
		if (err == nil) != c.ok || (err != nil && ragd.KindOf(err) != ragd.KindForbidden) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
