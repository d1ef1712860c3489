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
