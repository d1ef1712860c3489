package upstream

import (
	"slices"
	"strings"

	"ragd"
)

// Access is what a person gets: namespaces (nil = every namespace only when a matching grant lists "*") and groups.
type Access struct{ Namespaces, Groups []string }

// everyNamespace, in a grant's namespaces, is every namespace.
const everyNamespace = "*"

// Resolve decides: a ragd.Error Forbidden with a clear message if the
// identity is outside allowed_orgs / allowed_domains or matches no grant;
// otherwise the union of matching grants. A grant matches a GitHub
// "org/team" or "org", an OIDC group, or (OIDC) "@domain", the domain of
// a verified email. GitHub logins (orgs, teams) are
// compared without case, as GitHub does; OIDC groups exactly. Each allow
// list is enforced when it is set, whatever the provider: a list that
// cannot match the provider's identities refuses everyone rather than
// being ignored.
func Resolve(cfg Config, id Identity) (Access, error) {
	who := id.Login
	if who == "" {
		who = id.Subject
	}
	if len(cfg.AllowedOrgs) > 0 && !slices.ContainsFunc(id.Orgs, func(o string) bool { return containsFold(cfg.AllowedOrgs, o) }) {
		return Access{}, ragd.Forbidden("%s user %q is not a member of an organization allowed to sign in here (auth.oauth.allowed_orgs); ask the operator of this ragd", id.Provider, who)
	}
	if len(cfg.AllowedDomains) > 0 && !containsFold(cfg.AllowedDomains, emailDomain(id.Email)) {
		return Access{}, ragd.Forbidden("%s user %q has no verified email address in a domain allowed to sign in here (auth.oauth.allowed_domains); ask the operator of this ragd", id.Provider, who)
	}
	var acc Access
	matched, every := false, false
	for _, g := range cfg.Grants {
		if !matches(g.Match, id) {
			continue
		}
		matched = true
		every = every || slices.Contains(g.Namespaces, everyNamespace)
		acc.Namespaces = append(acc.Namespaces, g.Namespaces...)
		acc.Groups = append(acc.Groups, g.Groups...)
	}
	if !matched {
		return Access{}, ragd.Forbidden("%s user %q is in no team, organization or group this ragd grants access to (auth.oauth.grants); ask its operator", id.Provider, who)
	}
	acc.Groups = sortedSet(acc.Groups)
	if every {
		acc.Namespaces = nil
		return acc, nil
	}
	if acc.Namespaces = sortedSet(acc.Namespaces); len(acc.Namespaces) == 0 {
		// An empty list would read as "every namespace" downstream.
		return Access{}, ragd.Forbidden("the grants matching %s user %q name no namespace (auth.oauth.grants)", id.Provider, who)
	}
	return acc, nil
}

// matches: a grant's match names one of the identity's teams ("org/team"),
// organizations ("org") or OIDC groups, or (OIDC, "@domain") the domain of
// its verified email, for providers that send no groups (Google).
func matches(match string, id Identity) bool {
	if id.Provider == ProviderOIDC {
		if domain, ok := strings.CutPrefix(match, "@"); ok {
			return domain != "" && strings.EqualFold(emailDomain(id.Email), domain)
		}
		return slices.Contains(id.Groups, match)
	}
	if strings.Contains(match, "/") {
		return containsFold(id.Teams, match)
	}
	return containsFold(id.Orgs, match)
}

func containsFold(list []string, s string) bool {
	return s != "" && slices.ContainsFunc(list, func(e string) bool { return strings.EqualFold(e, s) })
}

// emailDomain is the part after the last @, or "".
func emailDomain(email string) string {
	i := strings.LastIndexByte(email, '@')
	if i < 0 {
		return ""
	}
	return email[i+1:]
}

func sortedSet(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
