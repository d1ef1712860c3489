// Package signin_test signs people in through ragd's authorization server
// the way its own clients do: ragd login (the CLI) against the
// authorization server and authn's middleware in oauth mode signing in
// upstream at the GitHub stand-in, and against a whole ragd signing in at
// the real OIDC provider the test scripts start.
package signin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/authn/oauth"
	"ragd/internal/authn/upstream"
	"ragd/internal/cli"
	"ragd/internal/ingest/guard"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
	"ragd/wire"
)

// server is ragd's authorization server and authn's middleware in oauth
// mode on one test server, signing in at the GitHub stand-in; /documents
// answers one document whose title is the principal's name and groups.
type server struct {
	base   string
	github *standin.GitHub
}

func octocat() standin.GitHubUser {
	return standin.GitHubUser{ID: 583231, Login: "octocat", Name: "The Octocat", Orgs: []string{"acme"}, Teams: []string{"acme/eng"}}
}

func newServer(t *testing.T) *server {
	t.Helper()
	gh := standin.NewGitHub(t, octocat())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	ucfg := upstream.Config{Provider: upstream.ProviderGitHub, ClientID: gh.ClientID, ClientSecret: gh.ClientSecret, GitHubURL: gh.URL, GitHubAPIURL: gh.APIURL(),
		AllowedOrgs: []string{"acme"}, Grants: []upstream.Grant{{Match: "acme/eng", Namespaces: []string{"docs"}, Groups: []string{"eng"}}}}
	up, err := upstream.New(context.Background(), ucfg)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	as, err := oauth.New(oauth.Config{Issuer: base, SignIn: oauth.Upstream(up, ucfg), Fetcher: &guard.Fetcher{},
		Store: kv.New(testenv.RedisClient(t, testenv.RedisURL(t))), Keys: keyspace.New("test:" + testenv.Unique(t, "signin")), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	auth, err := authn.New(authn.Config{Mode: authn.ModeOAuth, ResourceURL: base}, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.EnableOAuth(as, oauth.Paths, oauth.Scopes, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, p := range oauth.Paths {
		mux.Handle(p, as.Handler())
	}
	mux.Handle(authn.MetadataPath, auth.MetadataHandler())
	mux.HandleFunc("/documents", func(w http.ResponseWriter, r *http.Request) {
		p := authn.FromContext(r.Context())
		doc := ragd.Document{ID: "whoami", Title: p.Name + " " + strings.Join(p.Groups, ",")}
		_ = json.NewEncoder(w).Encode(wire.DocumentList{KBName: "docs", Documents: []ragd.Document{doc}, Count: 1, Total: 1})
	})
	srv := httptest.NewUnstartedServer(auth.Middleware(mux))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return &server{base: base, github: gh}
}

// browser is a person's browser: it follows every redirect, keeps
// cookies, and on ragd's consent page presses the button named decision.
func (s *server) browser(t *testing.T, decision string) func(string) error {
	return func(authURL string) error {
		go func() {
			jar, _ := cookiejar.New(nil)
			b := &http.Client{Jar: jar}
			res, err := b.Get(authURL)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res, err = signin.Press(context.Background(), b, s.base, string(body), decision); err != nil {
				t.Errorf("browser: consent: %v", err)
				return
			}
			res.Body.Close()
		}()
		return nil
	}
}

// run runs a CLI command and returns its exit status, stdout and stderr.
func run(t *testing.T, open func(string) error, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return runCtx(ctx, open, args...)
}

// runCtx is run until ctx ends.
func runCtx(ctx context.Context, open func(string) error, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, OpenBrowser: open}
	code := cli.Run(ctx, args, env)
	return code, out.String(), errb.String()
}

// signinFile is where ragd login keeps the tokens (under XDG_CONFIG_HOME).
func signinFile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	return filepath.Join(dir, "ragd", "signins.json")
}

// TestLoginThenCommands: ragd login registers itself, sends the browser
// through GitHub and the consent page, and keeps the tokens in a 0600
// file; ragd docs then reaches the server as octocat with acme/eng's
// groups, renews the expired access token with the refresh token (which
// rotates), and ragd logout revokes it: the refresh token is refused
// afterwards and the file no longer names the server. A second login
// revokes the sign-in it replaces.
func TestLoginThenCommands(t *testing.T) {
	path := signinFile(t)
	s := newServer(t)
	s.github.SignInAs("octocat")

	code, out, errs := run(t, s.browser(t, "allow"), "login", "--server", s.base)
	if code != 0 || !strings.Contains(out, "signed in to "+s.base) {
		t.Fatalf("login: exit %d, %s %s", code, out, errs)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", path, err, fi.Mode())
	}
	first := stored(t, path, s.base)

	// A second login replaces the first and revokes it.
	if code, out, errs = run(t, s.browser(t, "allow"), "login", "--server", s.base); code != 0 {
		t.Fatalf("second login: exit %d, %s %s", code, out, errs)
	}
	if status := refresh(t, s.base, first); status != http.StatusBadRequest {
		t.Fatalf("the first login's refresh token after the second login: status %d, want 400 (revoked)", status)
	}
	first = stored(t, path, s.base)

	code, out, errs = run(t, nil, "docs", "--server", s.base)
	if code != 0 || !strings.Contains(out, "octocat eng") {
		t.Fatalf("docs after login: exit %d, %s %s", code, out, errs)
	}

	expire(t, path, s.base)
	if code, out, errs = run(t, nil, "docs", "--server", s.base); code != 0 || !strings.Contains(out, "octocat eng") {
		t.Fatalf("docs with an expired access token: exit %d, %s %s", code, out, errs)
	}
	renewed := stored(t, path, s.base)
	if renewed.RefreshToken == first.RefreshToken || renewed.AccessToken == first.AccessToken {
		t.Fatal("the expired token was not renewed, or the refresh token not rotated")
	}

	// Commands started at once with an expired token take turns renewing
	// it: one refresh, not four uses of one refresh token (which would
	// revoke the grant as a reuse).
	expire(t, path, s.base)
	codes := make(chan string, 4)
	for range 4 {
		go func() {
			code, out, errs := run(t, nil, "docs", "--server", s.base)
			codes <- fmt.Sprintf("exit %d %s %s", code, strings.TrimSpace(out), strings.TrimSpace(errs))
		}()
	}
	for range 4 {
		if got := <-codes; !strings.HasPrefix(got, "exit 0") {
			t.Fatalf("docs run at once with an expired token: %s", got)
		}
	}
	renewed = stored(t, path, s.base)

	if code, out, errs = run(t, nil, "logout", "--server", s.base); code != 0 || !strings.Contains(out, "signed out") {
		t.Fatalf("logout: exit %d, %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), s.base) {
		t.Fatalf("the file still names the server after logout: %s", b)
	}
	if status := refresh(t, s.base, renewed); status != http.StatusBadRequest {
		t.Fatalf("the refresh token after logout: status %d, want 400", status)
	}
	if code, _, errs = run(t, nil, "docs", "--server", s.base); code != 1 || !strings.Contains(errs, "401") && !strings.Contains(errs, "authenticat") {
		t.Fatalf("docs after logout: exit %d, %s; want refused", code, errs)
	}
}

// TestLoginRefusals: a person who denies consent is not signed in, a
// person removed from the team loses access at the next refresh (the CLI
// says to sign in again), and a server that does not sign people in says
// so.
func TestLoginRefusals(t *testing.T) {
	path := signinFile(t)
	s := newServer(t)
	s.github.SignInAs("octocat")

	code, _, errs := run(t, s.browser(t, "deny"), "login", "--server", s.base)
	if code != 1 || !strings.Contains(errs, "access_denied") {
		t.Fatalf("login denied: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(path); err == nil && strings.Contains(string(testenv.ReadFile(t, path)), s.base) {
		t.Fatal("a denied login kept a token")
	}

	if code, _, errs = run(t, s.browser(t, "allow"), "login", "--server", s.base); code != 0 {
		t.Fatalf("login: exit %d, %s", code, errs)
	}
	s.github.Update("octocat", func(u *standin.GitHubUser) { u.Teams = nil })
	expire(t, path, s.base)
	code, _, errs = run(t, nil, "docs", "--server", s.base)
	if code != 1 || !strings.Contains(errs, "run ragd login") {
		t.Fatalf("docs after removal from the team: exit %d, %s", code, errs)
	}

	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	if code, _, errs = run(t, nil, "login", "--server", plain.URL); code != 1 || !strings.Contains(errs, "does not sign people in") {
		t.Fatalf("login at a server without oauth: exit %d, %s", code, errs)
	}
}

// kept is the part of a kept sign-in the tests read.
type kept struct {
	ClientID     string    `json:"client_id"`
	TokenURL     string    `json:"token_endpoint"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expiry"`
}

func readKept(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	var all map[string]map[string]any
	if err := json.Unmarshal(testenv.ReadFile(t, path), &all); err != nil {
		t.Fatal(err)
	}
	return all
}

func stored(t *testing.T, path, server string) kept {
	t.Helper()
	b, _ := json.Marshal(readKept(t, path)[server])
	var k kept
	_ = json.Unmarshal(b, &k)
	if k.AccessToken == "" || k.RefreshToken == "" || k.ClientID == "" {
		t.Fatalf("the kept sign-in of %s lacks tokens: %s", server, b)
	}
	return k
}

// expire makes the kept access token read as expired.
func expire(t *testing.T, path, server string) {
	t.Helper()
	all := readKept(t, path)
	all[server]["expiry"] = time.Now().Add(-time.Minute)
	b, _ := json.Marshal(all)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// refresh posts k's refresh token to the token endpoint and returns the status.
func refresh(t *testing.T, base string, k kept) int {
	t.Helper()
	res, err := http.PostForm(base+oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {k.RefreshToken}, "client_id": {k.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
