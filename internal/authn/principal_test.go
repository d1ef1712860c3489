package authn

import (
	"context"
	"errors"
	"testing"

	"ragd"
)

func TestAllows(t *testing.T) {
	limited := &Principal{Name: "finance-bot", Namespaces: []string{"finance", "hr"}}
	unlimited := &Principal{Name: "admin"}
	var disabled *Principal
	for _, tc := range []struct {
		p    *Principal
		ns   string
		want bool
	}{
		{limited, "finance", true},
		{limited, "hr", true},
		{limited, "default", false},
		{unlimited, "default", true},
		{unlimited, "anything", true},
		{disabled, "default", true},
	} {
		if got := tc.p.Allows(tc.ns); got != tc.want {
			t.Errorf("%+v.Allows(%q) = %v, want %v", tc.p, tc.ns, got, tc.want)
		}
	}
}

func TestCheckNamespace(t *testing.T) {
	ctx := WithPrincipal(context.Background(), &Principal{Name: "finance-bot", Namespaces: []string{"finance"}})
	if err := CheckNamespace(ctx, "finance"); err != nil {
		t.Errorf("allowed namespace: %v", err)
	}
	err := CheckNamespace(ctx, "hr")
	var e *ragd.Error
	if !errors.As(err, &e) || e.Kind != ragd.KindForbidden {
		t.Fatalf("CheckNamespace(hr) = %v, want KindForbidden", err)
	}
	if want := `key "finance-bot" may not access namespace "hr"`; e.Message != want {
		t.Errorf("message = %q, want %q", e.Message, want)
	}

	unlimited := WithPrincipal(context.Background(), &Principal{Name: "admin"})
	if err := CheckNamespace(unlimited, "hr"); err != nil {
		t.Errorf("unlimited key: %v", err)
	}
	// No principal: auth disabled, everything allowed.
	if err := CheckNamespace(context.Background(), "hr"); err != nil {
		t.Errorf("no principal: %v", err)
	}
	if FromContext(context.Background()) != nil {
		t.Error("FromContext without principal should be nil")
	}
}

// A principal enters a context with what it sees: the stores read that
// audience (ragd.AudienceIn), so no service call site passes one.
func TestWithPrincipalCarriesItsAudience(t *testing.T) {
	ctx := context.Background()
	if !ragd.AudienceIn(ctx).All() {
		t.Fatal("a context with no principal is ragd's own and sees every document")
	}
	for _, p := range []*Principal{nil, {Name: "op", Groups: []string{ragd.EveryGroup}}, {Name: "k", Groups: []string{"fin", "eng"}}, {Name: "open"}} {
		got := ragd.AudienceIn(WithPrincipal(ctx, p))
		if got.Key() != p.Audience().Key() || got.All() != p.Audience().All() {
			t.Errorf("%+v: context audience %q, want %q", p, got.Key(), p.Audience().Key())
		}
	}
}
