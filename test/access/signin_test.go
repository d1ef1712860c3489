package access_test

import (
	"net/http"
	"slices"
	"testing"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// TestSignedInPeopleSeeTheirTeamsDocuments: in auth.mode oauth a person
// signed in at GitHub (the stand-in) whose team is acme/eng sees exactly
// what the eng key sees, and one in acme/fin what the fin key sees, over
// every read path the keys are held to: REST searches (twice: the second
// from the cache, warmed by the other person first), answers, the document
// list, statistics, and over MCP core_retrieve_text, resources and
// completions. The static keys keep working beside them.
//
// Not parallel: it adds the two people's tokens to sees and keyName before
// the parallel tests, which only read them, resume.
func TestSignedInPeopleSeeTheirTeamsDocuments(t *testing.T) {
	gh := standin.NewGitHub(t,
		standin.GitHubUser{ID: 1001, Login: "ada", Orgs: []string{"acme"}, Teams: []string{"acme/eng"}},
		standin.GitHubUser{ID: 1002, Login: "bob", Orgs: []string{"acme"}, Teams: []string{"acme/fin"}})
	l, base := stack.Listen(t)
	cfg := authConfig(t)
	cfg.Auth.Mode, cfg.Auth.ResourceURL = "oauth", base
	o := &cfg.Auth.OAuth
	o.Provider, o.ClientID, o.ClientSecret, o.GitHubURL, o.GitHubAPIURL = "github", gh.ClientID, gh.ClientSecret, gh.URL, gh.APIURL()
	o.AllowedOrgs = []string{"acme"}
	o.Grants = []config.AuthGrant{{Match: "acme/eng", Namespaces: []string{ns}, Groups: []string{"eng"}}, {Match: "acme/fin", Namespaces: []string{ns}, Groups: []string{"fin"}}}
	k := indexDocuments(t, stack.StartOn(t, cfg, true, l))
	var people []string
	for login, like := range map[string]string{"ada": engToken, "bob": finToken} {
		gh.SignInAs(login)
		tok := signin.Token(t, base)
		sees[tok], keyName[tok] = sees[like], login+" (signed in)"
		people = append(people, tok)
	}
	for round := range 2 {
		for _, tok := range append(people, opsToken) {
			if got := searchNames(t, k, tok, ns); !slices.Equal(got, sees[tok]) {
				t.Fatalf("round %d, search as %s: %v, want %v", round, keyName[tok], got, sees[tok])
			}
			checkAnswer(t, k, tok)
		}
	}
	for _, tok := range people {
		checkDocuments(t, k, tok)
		checkStats(t, k, tok)
		cs := connect(t, k, tok)
		out := tool(t, cs, "core_retrieve_text", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10})
		if got := k.names(metaField(out["results"], "document_id")); !slices.Equal(got, sees[tok]) {
			t.Fatalf("core_retrieve_text as %s: %v, want %v", keyName[tok], got, sees[tok])
		}
		checkResources(t, k, cs, tok)
		checkCompletions(t, k, cs, tok)
		if r := call(t, k.s, tok, http.MethodGet, "/documents?kb_name=other", nil); r.Status != http.StatusForbidden {
			t.Fatalf("another namespace as %s: %d, want 403", keyName[tok], r.Status)
		}
	}
}
