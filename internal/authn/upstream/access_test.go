package upstream_test

import (
	"reflect"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/authn/upstream"
)

// grants is the grant table of the Resolve tests: eng and fin teams of
// acme, all of acme, an OIDC group, and an operator team.
var grants = []upstream.Grant{
	{Match: "acme/eng", Namespaces: []string{"docs", "eng"}, Groups: []string{"eng"}},
	{Match: "acme/fin", Namespaces: []string{"docs", "fin"}, Groups: []string{"fin"}},
	{Match: "acme", Namespaces: []string{"docs"}},
	{Match: "acme/ops", Namespaces: []string{"*"}, Groups: []string{"*"}},
	{Match: "/kb-readers", Namespaces: []string{"kb"}, Groups: []string{"readers"}},
	{Match: "empty-grant", Groups: []string{"x"}},
	{Match: "@acme.com", Namespaces: []string{"open"}},
}

func gh(orgs, teams []string) upstream.Identity {
	return upstream.Identity{Provider: upstream.ProviderGitHub, Subject: "1", Login: "octo", Orgs: orgs, Teams: teams}
}

func oidcID(email string, groups ...string) upstream.Identity {
	return upstream.Identity{Provider: upstream.ProviderOIDC, Subject: "s", Login: "ann", Email: email, Groups: groups}
}

// TestResolve: the union of the matching grants, every namespace only
// through "*", and each refusal with its own words.
func TestResolve(t *testing.T) {
	cases := []struct {
		name    string
		cfg     upstream.Config
		id      upstream.Identity
		want    upstream.Access
		refused string // a part of the Forbidden message; "" when admitted
	}{
		{name: "team and org grants are united", cfg: upstream.Config{Grants: grants},
			id:   gh([]string{"acme"}, []string{"acme/eng"}),
			want: upstream.Access{Namespaces: []string{"docs", "eng"}, Groups: []string{"eng"}}},
		{name: "two teams", cfg: upstream.Config{Grants: grants},
			id:   gh([]string{"acme"}, []string{"acme/eng", "acme/fin"}),
			want: upstream.Access{Namespaces: []string{"docs", "eng", "fin"}, Groups: []string{"eng", "fin"}}},
		{name: "GitHub names compare without case", cfg: upstream.Config{Grants: grants, AllowedOrgs: []string{"ACME"}},
			id:   gh([]string{"Acme"}, []string{"Acme/Eng"}),
			want: upstream.Access{Namespaces: []string{"docs", "eng"}, Groups: []string{"eng"}}},
		{name: "org alone", cfg: upstream.Config{Grants: grants},
			id:   gh([]string{"acme"}, nil),
			want: upstream.Access{Namespaces: []string{"docs"}}},
		{name: "star is every namespace", cfg: upstream.Config{Grants: grants},
			id:   gh([]string{"acme"}, []string{"acme/ops", "acme/eng"}),
			want: upstream.Access{Namespaces: nil, Groups: []string{"*", "eng"}}},
		{name: "OIDC group and email domain", cfg: upstream.Config{Grants: grants, AllowedDomains: []string{"acme.com"}},
			id:   oidcID("ann@Acme.com", "/kb-readers"),
			want: upstream.Access{Namespaces: []string{"kb", "open"}, Groups: []string{"readers"}}},
		{name: "email domain alone (a provider without groups)", cfg: upstream.Config{Grants: grants},
			id:   oidcID("bob@acme.com"),
			want: upstream.Access{Namespaces: []string{"open"}}},
		{name: "an unverified email matches no domain grant", cfg: upstream.Config{Grants: grants},
			id: oidcID(""), refused: "auth.oauth.grants"},
		{name: "a GitHub email does not match a domain grant", cfg: upstream.Config{Grants: grants},
			id: upstream.Identity{Provider: upstream.ProviderGitHub, Subject: "2", Login: "bob", Email: "bob@acme.com"}, refused: "auth.oauth.grants"},
		{name: "a team of another org does not match by its slug", cfg: upstream.Config{Grants: grants},
			id: gh([]string{"evil"}, []string{"evil/eng"}), refused: "in no team, organization or group"},
		{name: "outside allowed_orgs", cfg: upstream.Config{Grants: grants, AllowedOrgs: []string{"acme"}},
			id: gh([]string{"other"}, []string{"acme/eng"}), refused: "allowed_orgs"},
		{name: "no orgs at all with allowed_orgs", cfg: upstream.Config{Grants: grants, AllowedOrgs: []string{"acme"}},
			id: gh(nil, nil), refused: "allowed_orgs"},
		{name: "no grant matches", cfg: upstream.Config{Grants: grants},
			id: gh([]string{"other"}, []string{"other/eng"}), refused: "auth.oauth.grants"},
		{name: "email outside allowed_domains", cfg: upstream.Config{Grants: grants, AllowedDomains: []string{"acme.com"}},
			id: oidcID("ann@evil.com", "/kb-readers"), refused: "allowed_domains"},
		{name: "a subdomain is another domain", cfg: upstream.Config{Grants: grants, AllowedDomains: []string{"acme.com"}},
			id: oidcID("ann@evil.acme.com.io", "/kb-readers"), refused: "allowed_domains"},
		{name: "no verified email with allowed_domains", cfg: upstream.Config{Grants: grants, AllowedDomains: []string{"acme.com"}},
			id: oidcID("", "/kb-readers"), refused: "allowed_domains"},
		{name: "a GitHub org's members are not an OIDC group's", cfg: upstream.Config{Grants: []upstream.Grant{{Match: "/kb-readers", Namespaces: []string{"kb"}}}},
			id: gh([]string{"/kb-readers"}, nil), refused: "auth.oauth.grants"},
		{name: "OIDC groups compare exactly", cfg: upstream.Config{Grants: grants},
			id: oidcID("ann@acme.io", "/KB-readers"), refused: "auth.oauth.grants"},
		{name: "allowed_domains applies to a GitHub identity too", cfg: upstream.Config{Grants: grants, AllowedDomains: []string{"acme.com"}},
			id: gh([]string{"acme"}, nil), refused: "allowed_domains"},
		{name: "a grant without namespaces gives none", cfg: upstream.Config{Grants: grants},
			id: oidcID("ann@acme.io", "empty-grant"), refused: "name no namespace"},
		{name: "no grants at all", cfg: upstream.Config{},
			id: gh([]string{"acme"}, []string{"acme/eng"}), refused: "auth.oauth.grants"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := upstream.Resolve(c.cfg, c.id)
			if c.refused != "" {
				if ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("Resolve = %+v, %v; want Forbidden naming %q", got, err, c.refused)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Resolve = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
