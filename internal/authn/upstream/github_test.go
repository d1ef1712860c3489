package upstream_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/authn/upstream"
	"ragd/internal/testkit/standin"
)

const ghCallback = "https://ragd.example/oauth/callback"

func githubProvider(t *testing.T, g *standin.GitHub) upstream.Provider {
	t.Helper()
	p, err := upstream.New(ctx, upstream.Config{Provider: upstream.ProviderGitHub, ClientID: g.ClientID, ClientSecret: g.ClientSecret,
		GitHubURL: g.URL, GitHubAPIURL: g.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ghSignIn runs the web flow as login and returns the upstream code.
func ghSignIn(t *testing.T, g *standin.GitHub, p upstream.Provider, login, challenge string) string {
	t.Helper()
	g.SignInAs(login)
	authURL := p.AuthCodeURL("state-1", challenge, ghCallback)
	code, state := callback(t, get(t, browser(t, ghCallback), authURL), ghCallback)
	if state != "state-1" {
		t.Fatalf("state = %q", state)
	}
	return code
}

func octocat() standin.GitHubUser {
	teams := []string{"acme/eng"}
	for i := range 7 {
		teams = append(teams, "acme/team"+string(rune('a'+i)))
	}
	return standin.GitHubUser{ID: 583231, Login: "octocat", Name: "The Octocat", Email: "octo@acme.example",
		Orgs: []string{"acme", "other", "third"}, Teams: teams}
}

// TestGitHubSignIn: the authorize URL carries PKCE S256 and ragd's
// callback, the code is exchanged with the verifier, and the user, every
// page of orgs and teams (3 pages of 3 teams here) come back; the
// credential rechecks the same person.
func TestGitHubSignIn(t *testing.T) {
	g := standin.NewGitHub(t, octocat())
	g.PageSize = 3
	p := githubProvider(t, g)
	verifier, challenge := pkcePair()

	u, _ := url.Parse(p.AuthCodeURL("st", challenge, ghCallback))
	q := u.Query()
	if u.Path != "/login/oauth/authorize" || q.Get("code_challenge") != challenge || q.Get("code_challenge_method") != "S256" ||
		q.Get("redirect_uri") != ghCallback || q.Get("client_id") != g.ClientID || !strings.Contains(q.Get("scope"), "read:org") {
		t.Fatalf("authorize URL %s", u)
	}

	code := ghSignIn(t, g, p, "octocat", challenge)
	id, cred, err := p.Exchange(ctx, code, verifier, ghCallback)
	if err != nil {
		t.Fatal(err)
	}
	want := octocat()
	if id.Provider != "github" || id.Subject != "583231" || id.Login != "octocat" || id.Name != want.Name || id.Email != want.Email ||
		!slices.Equal(id.Orgs, want.Orgs) || !slices.Equal(id.Teams, want.Teams) {
		t.Fatalf("identity %+v", id)
	}
	if n := g.Requests("/api/v3/user/teams"); n != 3 {
		t.Fatalf("teams read in %d pages, want 3 of 3 (8 teams)", n)
	}
	again, _, err := p.Recheck(ctx, cred)
	if err != nil || !slices.Equal(again.Teams, want.Teams) {
		t.Fatalf("Recheck = %+v, %v", again, err)
	}
}

// TestGitHubRecheckSeesRemoval: a person removed from a team loses it at
// the next Recheck, and so the grant's access at Resolve; a revoked token
// is refused.
func TestGitHubRecheckSeesRemoval(t *testing.T) {
	g := standin.NewGitHub(t, octocat())
	p := githubProvider(t, g)
	verifier, challenge := pkcePair()
	id, cred, err := p.Exchange(ctx, ghSignIn(t, g, p, "octocat", challenge), verifier, ghCallback)
	if err != nil {
		t.Fatal(err)
	}
	cfg := upstream.Config{Grants: []upstream.Grant{{Match: "acme/eng", Namespaces: []string{"eng"}, Groups: []string{"eng"}}}}
	if _, err := upstream.Resolve(cfg, id); err != nil {
		t.Fatalf("before removal: %v", err)
	}
	g.Update("octocat", func(u *standin.GitHubUser) {
		u.Teams = slices.DeleteFunc(u.Teams, func(s string) bool { return s == "acme/eng" })
	})
	id, cred, err = p.Recheck(ctx, cred)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := upstream.Resolve(cfg, id); ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("after removal from acme/eng: Resolve = %v, want Forbidden", err)
	}
	g.RevokeTokens("octocat")
	if _, _, err := p.Recheck(ctx, cred); ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "sign in again") {
		t.Fatalf("revoked token: Recheck = %v, want Forbidden", err)
	}
}

// TestGitHubExpiringTokensRenew: with expiring user tokens (a GitHub
// App's), Recheck trades the refresh token for a new pair and returns the
// renewed credential; the replaced one, whose refresh token GitHub has
// retired, is refused. (The stand-in's tokens last 5 s, inside oauth2's
// 10 s margin: they always read as expired.)
func TestGitHubExpiringTokensRenew(t *testing.T) {
	g := standin.NewGitHub(t, octocat())
	g.ExpiresIn = 5
	p := githubProvider(t, g)
	verifier, challenge := pkcePair()
	_, cred, err := p.Exchange(ctx, ghSignIn(t, g, p, "octocat", challenge), verifier, ghCallback)
	if err != nil {
		t.Fatal(err)
	}
	id, renewed, err := p.Recheck(ctx, cred)
	if err != nil || id.Login != "octocat" || bytes.Equal(renewed, cred) {
		t.Fatalf("Recheck = %+v, renewed %v, %v", id, !bytes.Equal(renewed, cred), err)
	}
	if n := g.Requests("/login/oauth/access_token"); n != 2 {
		t.Fatalf("%d token requests, want 2 (the code, then the refresh)", n)
	}
	if _, _, err := p.Recheck(ctx, cred); ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), "bad_refresh_token") {
		t.Fatalf("Recheck with the replaced credential = %v, want Forbidden (bad_refresh_token)", err)
	}
	if _, _, err := p.Recheck(ctx, renewed); err != nil {
		t.Fatalf("Recheck with the renewed credential: %v", err)
	}
}

// TestGitHubExchangeRefusals: a wrong verifier, a code used twice, a
// callback other than the one the code was issued for and a wrong client
// secret are each refused as Forbidden, naming GitHub's error code.
func TestGitHubExchangeRefusals(t *testing.T) {
	g := standin.NewGitHub(t, octocat())
	p := githubProvider(t, g)

	verifier, challenge := pkcePair()
	other, _ := pkcePair()
	code := ghSignIn(t, g, p, "octocat", challenge)
	expectRefused(t, "wrong verifier", p, code, other, ghCallback, "bad_verification_code")

	code = ghSignIn(t, g, p, "octocat", challenge)
	if _, _, err := p.Exchange(ctx, code, verifier, ghCallback); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, "code reused", p, code, verifier, ghCallback, "bad_verification_code")

	code = ghSignIn(t, g, p, "octocat", challenge)
	expectRefused(t, "other callback", p, code, verifier, "https://evil.example/cb", "redirect_uri_mismatch")

	bad, err := upstream.New(ctx, upstream.Config{Provider: "github", ClientID: g.ClientID, ClientSecret: "wrong", GitHubURL: g.URL, GitHubAPIURL: g.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	code = ghSignIn(t, g, bad, "octocat", challenge)
	expectRefused(t, "wrong client secret", bad, code, verifier, ghCallback, "incorrect_client_credentials")
}

func expectRefused(t *testing.T, what string, p upstream.Provider, code, verifier, redirectURI, words string) {
	t.Helper()
	_, cred, err := p.Exchange(ctx, code, verifier, redirectURI)
	if ragd.KindOf(err) != ragd.KindForbidden || !strings.Contains(err.Error(), words) || cred != nil {
		t.Fatalf("%s: Exchange = %v, want Forbidden naming %s", what, err, words)
	}
}

// TestGitHubLinkStaysOnTheAPIHost: a Link header pointing to another
// host is not followed (the token would go with it).
func TestGitHubLinkStaysOnTheAPIHost(t *testing.T) {
	evil := standin.NewGitHub(t)
	g := standin.NewGitHub(t, octocat())
	g.PageSize = 1
	p := githubProvider(t, g)
	proxy := relinker(t, g, evil.URL)
	p2, err := upstream.New(ctx, upstream.Config{Provider: "github", ClientID: g.ClientID, ClientSecret: g.ClientSecret,
		GitHubURL: g.URL, GitHubAPIURL: proxy + "/api/v3"})
	if err != nil {
		t.Fatal(err)
	}
	verifier, challenge := pkcePair()
	code := ghSignIn(t, g, p, "octocat", challenge)
	_, _, err = p2.Exchange(ctx, code, verifier, ghCallback)
	if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(err.Error(), "off the API host") {
		t.Fatalf("Exchange = %v, want Unavailable: a Link off the API host", err)
	}
	if n := evil.Requests("/api/v3/user/orgs"); n != 0 {
		t.Fatalf("the other host got %d calls", n)
	}
}

// TestUnknownProvider: New names the providers it knows.
func TestUnknownProvider(t *testing.T) {
	if _, err := upstream.New(ctx, upstream.Config{Provider: "gitlab", ClientID: "x"}); err == nil || !strings.Contains(err.Error(), "github or oidc") {
		t.Fatalf("New(gitlab) = %v", err)
	}
	t.Setenv("RAGD_TEST_UPSTREAM_SECRET", "")
	if _, err := upstream.New(ctx, upstream.Config{Provider: "github", ClientID: "x", ClientSecret: "env:RAGD_TEST_UPSTREAM_SECRET", GitHubURL: "https://github.com", GitHubAPIURL: "https://api.github.com"}); err == nil || !strings.Contains(err.Error(), "RAGD_TEST_UPSTREAM_SECRET") {
		t.Fatalf("New with an unset env secret = %v", err)
	}
}

// relinker is a proxy to g whose Link headers point to other instead.
func relinker(t *testing.T, g *standin.GitHub, other string) string {
	t.Helper()
	target, _ := url.Parse(g.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if l := resp.Header.Get("Link"); l != "" {
			resp.Header.Set("Link", strings.ReplaceAll(l, "http://"+resp.Request.Host, other))
		}
		return nil
	}
	s := httptest.NewServer(rp)
	t.Cleanup(s.Close)
	return s.URL
}
