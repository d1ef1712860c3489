package standin

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"
)

// GitHubUser is a person the GitHub stand-in knows.
type GitHubUser struct {
	ID    int64
	Login string
	Name  string
	Email string   // "" answers null, as for a private address
	Orgs  []string // org logins
	Teams []string // "org/team-slug"
}

// GitHub is a stand-in for GitHub's OAuth web flow and the REST calls
// ragd makes, as GitHub documents them
// (docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
// and the REST reference):
//
//   - GET /login/oauth/authorize (client_id, redirect_uri, state, scope,
//     code_challenge, code_challenge_method S256) signs in the user
//     SignInAs named (no page) and redirects to redirect_uri with code and
//     state;
//   - POST /login/oauth/access_token (client_id, client_secret, code,
//     redirect_uri, code_verifier; or grant_type=refresh_token and
//     refresh_token) answers access_token, token_type and scope (and, with
//     ExpiresIn, expires_in and refresh_token), in JSON when asked by
//     Accept and form-encoded otherwise, and refuses with 200 and an error
//     field (bad_verification_code, bad_refresh_token,
//     incorrect_client_credentials, redirect_uri_mismatch) as GitHub does;
//   - GET /api/v3/user, /api/v3/user/orgs and /api/v3/user/teams with the
//     token as a bearer, the lists paged by per_page and page with a Link
//     header (rel="next", rel="last"); 401 {"message": "Bad credentials"}
//     for an unknown token.
//
// It is not GitHub: it shows no pages and checks only what ragd sends.
type GitHub struct {
	*httptest.Server
	ClientID, ClientSecret string
	// PageSize caps per_page (GitHub's cap is 100), so paging shows with
	// few entries.
	PageSize int
	// ExpiresIn, when not 0, makes tokens expiring ones, as a GitHub
	// App's user tokens are: the answer gains expires_in (these seconds)
	// and a single-use refresh_token, which grant_type=refresh_token
	// trades for a new pair (bad_refresh_token when unknown or used).
	ExpiresIn int

	mu     sync.Mutex
	users  map[string]*GitHubUser
	next   string
	codes  map[string]ghCode
	tokens map[string]string // token → login
	// refresh holds the unused refresh tokens: token → login.
	refresh map[string]string
	// Requests counts calls by path.
	requests map[string]int
}

type ghCode struct{ login, redirectURI, challenge string }

// NewGitHub starts the stand-in with one OAuth app and the users given;
// it stops when the test ends. The API is at URL+"/api/v3", as on GitHub
// Enterprise.
func NewGitHub(t testing.TB, users ...GitHubUser) *GitHub {
	g := &GitHub{ClientID: "Iv1.standin", ClientSecret: "standin-secret", PageSize: 100,
		users: map[string]*GitHubUser{}, codes: map[string]ghCode{}, tokens: map[string]string{}, refresh: map[string]string{}, requests: map[string]int{}}
	for _, u := range users {
		g.users[u.Login] = &u
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", g.authorize)
	mux.HandleFunc("POST /login/oauth/access_token", g.accessToken)
	mux.HandleFunc("GET /api/v3/user", g.user)
	mux.HandleFunc("GET /api/v3/user/orgs", g.orgs)
	mux.HandleFunc("GET /api/v3/user/teams", g.teams)
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.requests[r.URL.Path]++
		g.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

// APIURL is the stand-in's REST API (github_api_url).
func (g *GitHub) APIURL() string { return g.URL + "/api/v3" }

// SignInAs makes the next authorizations sign in login.
func (g *GitHub) SignInAs(login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next = login
}

// Update changes a user (e.g. removes them from a team).
func (g *GitHub) Update(login string, change func(*GitHubUser)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	change(g.users[login])
}

// RevokeTokens forgets every token of login, as revoking the app does.
func (g *GitHub) RevokeTokens(login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for tok, l := range g.tokens {
		if l == login {
			delete(g.tokens, tok)
		}
	}
}

// Requests is how many calls reached path.
func (g *GitHub) Requests(path string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests[path]
}

func (g *GitHub) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != g.ClientID {
		http.Error(w, "unknown client_id", http.StatusNotFound)
		return
	}
	if q.Get("code_challenge") != "" && q.Get("code_challenge_method") != "S256" {
		http.Error(w, "code_challenge_method must be S256", http.StatusBadRequest)
		return
	}
	target, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || target.Host == "" {
		http.Error(w, "redirect_uri is not an absolute URL", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	code := randomHex()
	g.codes[code] = ghCode{login: g.next, redirectURI: target.String(), challenge: q.Get("code_challenge")}
	g.mu.Unlock()
	back := target.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	target.RawQuery = back.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

func (g *GitHub) accessToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f := r.PostForm
	g.mu.Lock()
	login, errCode := g.grant(f)
	answer := url.Values{"error": {errCode}, "error_description": {"refused by the stand-in"}}
	if errCode == "" {
		answer = g.issue(login)
	}
	g.mu.Unlock()
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		writeJSON(w, http.StatusOK, flat(answer))
		return
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	_, _ = w.Write([]byte(answer.Encode()))
}

// grant checks a token request (code or refresh token, as GitHub does)
// and returns whom it is for, or GitHub's error code. g.mu is held.
func (g *GitHub) grant(f url.Values) (login, errCode string) {
	if f.Get("client_id") != g.ClientID || f.Get("client_secret") != g.ClientSecret {
		return "", "incorrect_client_credentials"
	}
	if f.Get("grant_type") == "refresh_token" {
		login, ok := g.refresh[f.Get("refresh_token")]
		delete(g.refresh, f.Get("refresh_token"))
		if !ok {
			return "", "bad_refresh_token"
		}
		return login, ""
	}
	c, ok := g.codes[f.Get("code")]
	delete(g.codes, f.Get("code"))
	switch {
	case !ok:
		return "", "bad_verification_code"
	case f.Get("redirect_uri") != c.redirectURI:
		return "", "redirect_uri_mismatch"
	case c.challenge != "" && oauth2.S256ChallengeFromVerifier(f.Get("code_verifier")) != c.challenge:
		return "", "bad_verification_code"
	}
	return c.login, ""
}

// issue makes login's tokens. g.mu is held.
func (g *GitHub) issue(login string) url.Values {
	tok := "gho_" + randomHex()
	g.tokens[tok] = login
	answer := url.Values{"access_token": {tok}, "token_type": {"bearer"}, "scope": {"read:org,read:user,user:email"}}
	if g.ExpiresIn != 0 {
		ref := "ghr_" + randomHex()
		g.refresh[ref] = login
		answer.Set("expires_in", strconv.Itoa(g.ExpiresIn))
		answer.Set("refresh_token", ref)
		answer.Set("refresh_token_expires_in", "15811200")
	}
	return answer
}

// caller is the user the request's token belongs to, or nil after a 401.
func (g *GitHub) caller(w http.ResponseWriter, r *http.Request) *GitHubUser {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		tok, _ = strings.CutPrefix(auth, "token ")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.users[g.tokens[tok]]
	if tok == "" || u == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`))
		return nil
	}
	c := *u
	return &c
}

func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	u := g.caller(w, r)
	if u == nil {
		return
	}
	var email any
	if u.Email != "" {
		email = u.Email
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": u.ID, "login": u.Login, "name": u.Name, "email": email, "type": "User"})
}

func (g *GitHub) orgs(w http.ResponseWriter, r *http.Request) {
	u := g.caller(w, r)
	if u == nil {
		return
	}
	items := make([]any, len(u.Orgs))
	for i, o := range u.Orgs {
		items[i] = map[string]any{"login": o, "id": i + 1}
	}
	g.page(w, r, items)
}

func (g *GitHub) teams(w http.ResponseWriter, r *http.Request) {
	u := g.caller(w, r)
	if u == nil {
		return
	}
	items := make([]any, len(u.Teams))
	for i, t := range u.Teams {
		org, slug, _ := strings.Cut(t, "/")
		items[i] = map[string]any{"slug": slug, "name": slug, "id": i + 1, "organization": map[string]any{"login": org}}
	}
	g.page(w, r, items)
}

// page answers one page of items with GitHub's Link header.
func (g *GitHub) page(w http.ResponseWriter, r *http.Request, items []any) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, g.PageSize)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	last := max((len(items)+per-1)/per, 1)
	lo, hi := min((page-1)*per, len(items)), min(page*per, len(items))
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	if page < last {
		w.Header().Set("Link", link(page+1, "next")+", "+link(last, "last"))
	}
	writeJSON(w, http.StatusOK, items[lo:hi])
}

func flat(v url.Values) map[string]string {
	m := map[string]string{}
	for k := range v {
		m[k] = v.Get(k)
	}
	return m
}

func randomHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
