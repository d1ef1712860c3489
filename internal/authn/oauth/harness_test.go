package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/authn/oauth"
	"ragd/internal/ingest/guard"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
)

// upstreamStandIn is a sign-in provider stand-in: its authorize page
// signs the person in at once and sends the browser back to ragd's
// callback with a code, which Exchange trades only with the verifier
// whose S256 challenge came with it.
type upstreamStandIn struct {
	srv *httptest.Server
	mu  sync.Mutex
	// person is who signs in; refused, when set, is every Exchange's and
	// Recheck's answer.
	person  oauth.Person
	refused error
	codes   map[string]string // code → the challenge it came with
	saw     []string          // redirect_uris ragd named
}

func newUpstream(t *testing.T, p oauth.Person) *upstreamStandIn {
	u := &upstreamStandIn{person: p, codes: map[string]string{}}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := testenv.Unique(t, "up")
		u.mu.Lock()
		u.codes[code] = q.Get("code_challenge")
		u.saw = append(u.saw, q.Get("redirect_uri"))
		u.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstreamStandIn) AuthCodeURL(state, challenge, redirectURI string) string {
	return u.srv.URL + "/authorize?" + url.Values{"state": {state}, "code_challenge": {challenge}, "redirect_uri": {redirectURI}}.Encode()
}

func (u *upstreamStandIn) Exchange(_ context.Context, code, verifier, _ string) (oauth.Person, []byte, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	challenge, ok := u.codes[code]
	delete(u.codes, code)
	if !ok || challenge != s256(verifier) {
		return oauth.Person{}, nil, ragd.Invalid("code", "value_error", "bad upstream code or verifier")
	}
	if u.refused != nil {
		return oauth.Person{}, nil, u.refused
	}
	return u.person, []byte("upstream-credential-" + u.person.Subject), nil
}

func (u *upstreamStandIn) Recheck(_ context.Context, credential []byte) (oauth.Person, []byte, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.refused != nil {
		return oauth.Person{}, nil, u.refused
	}
	if string(credential) != "upstream-credential-"+u.person.Subject {
		return oauth.Person{}, nil, ragd.Forbidden("unknown credential")
	}
	return u.person, credential, nil
}

func (u *upstreamStandIn) set(p oauth.Person, refused error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.person, u.refused = p, refused
}

// harness is ragd's authorization server and a protected resource behind
// authn's middleware in oauth mode, on one test HTTP server, with a
// browser that does not follow redirects.
type harness struct {
	t        *testing.T
	srv      *httptest.Server
	base     string
	as       *oauth.Server
	auth     *authn.Authenticator
	upstream *upstreamStandIn
	browser  *http.Client
	store    *kv.Store
	keys     keyspace.Keys
	log      *testenv.Buffer
}

// eng is the person most tests sign in: acme/eng's grants.
var eng = oauth.Person{Subject: "github:1001", Name: "ada", Namespaces: []string{"docs"}, Groups: []string{"eng"}}

// staticKey is an operator's static key, which oauth mode keeps.
const staticKey = "static-operator-key-0123456789"

func newHarness(t *testing.T, change ...func(*oauth.Config)) *harness {
	t.Helper()
	st := kv.New(testenv.RedisClient(t, testenv.RedisURL(t)))
	h := &harness{t: t, store: st, keys: keyspace.New("test:" + testenv.Unique(t, "oauth")), upstream: newUpstream(t, eng), log: &testenv.Buffer{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.base = "http://" + l.Addr().String()
	cfg := oauth.Config{Issuer: h.base, SignIn: h.upstream, Fetcher: &guard.Fetcher{}, Store: st, Keys: h.keys,
		Log: slog.New(slog.NewTextHandler(h.log, nil))}
	for _, c := range change {
		c(&cfg)
	}
	if h.as, err = oauth.New(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.as.Close)
	h.auth, err = authn.New(authn.Config{Mode: authn.ModeOAuth, ResourceURL: h.base,
		Keys: []authn.Key{{Name: "ops", Token: staticKey, Groups: []string{ragd.EveryGroup}}}}, slog.New(slog.NewTextHandler(h.log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.auth.EnableOAuth(h.as, oauth.Paths, oauth.Scopes, func(name string) bool { return name != "core_retrieve_text" }); err != nil {
		t.Fatal(err)
	}
	h.srv = httptest.NewUnstartedServer(h.auth.Middleware(h.mux()))
	h.srv.Listener.Close()
	h.srv.Listener = l
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	jar, _ := cookiejar.New(nil)
	h.browser = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(func() {
		if strings.Contains(h.log.String(), "upstream-credential") {
			t.Error("the upstream credential reached the log")
		}
	})
	return h
}

// mux serves the authorization server, the metadata, and a resource
// answering the principal it sees, at /documents, /mcp and /metrics.
func (h *harness) mux() http.Handler {
	mux := http.NewServeMux()
	as := h.as.Handler()
	for _, p := range oauth.Paths {
		mux.Handle(p, as)
	}
	mux.Handle(authn.MetadataPath, h.auth.MetadataHandler())
	mux.Handle(authn.MetadataPath+"/", h.auth.MetadataHandler())
	who := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(authn.FromContext(r.Context()))
	})
	for _, p := range []string{"/documents", "/mcp", "/metrics"} {
		mux.Handle(p, who)
	}
	return mux
}

// register registers a client dynamically with redirect.
func (h *harness) register(redirect string) string {
	h.t.Helper()
	res, body := h.post(oauth.RegisterPath, "application/json", `{"client_name":"Test Agent","redirect_uris":["`+redirect+`"]}`, nil)
	if res.StatusCode != http.StatusCreated {
		h.t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	_ = json.Unmarshal([]byte(body), &reg)
	return reg.ClientID
}

// get sends the browser to path (or a full URL).
func (h *harness) get(target string) (*http.Response, string) {
	h.t.Helper()
	if strings.HasPrefix(target, "/") {
		target = h.base + target
	}
	res, err := h.browser.Get(target)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// post sends body to path with header.
func (h *harness) post(path, contentType, body string, header map[string]string) (*http.Response, string) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := h.browser.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// authorization is one /authorize request's parameters.
type authorization struct {
	client, redirect, verifier, state, scope, resource string
	method                                             string // code_challenge_method; "" is S256
	noChallenge                                        bool
}

func (h *harness) newAuthorization(redirect string) authorization {
	return authorization{client: h.register(redirect), redirect: redirect, verifier: testenv.Unique(h.t, "verifier-0123456789-0123456789-0123456789"),
		state: testenv.Unique(h.t, "st"), resource: h.base + "/mcp", scope: "read write"}
}

func (a authorization) query() string {
	q := url.Values{"response_type": {"code"}, "client_id": {a.client}, "redirect_uri": {a.redirect}, "state": {a.state}, "resource": {a.resource}, "scope": {a.scope}}
	if !a.noChallenge {
		q.Set("code_challenge", s256(a.verifier))
		q.Set("code_challenge_method", "S256")
		if a.method != "" {
			q.Set("code_challenge_method", a.method)
			q.Set("code_challenge", a.verifier)
		}
	}
	return oauth.AuthorizePath + "?" + q.Encode()
}

var hiddenField = regexp.MustCompile(`name="(request|csrf)" value="([^"]+)"`)

// consentPage runs /authorize and the upstream sign-in and returns the
// consent page's form fields and body.
func (h *harness) consentPage(a authorization) (url.Values, string) {
	h.t.Helper()
	res, body := h.get(a.query())
	for hop := 0; res.StatusCode == http.StatusFound && hop < 3; hop++ {
		res, body = h.get(res.Header.Get("Location"))
	}
	if res.StatusCode != http.StatusOK {
		h.t.Fatalf("consent page: %d %s", res.StatusCode, body)
	}
	form := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], m[2])
	}
	return form, body
}

// consent posts the consent form from ragd's origin and returns the redirect.
func (h *harness) consent(form url.Values, decision string) *url.URL {
	h.t.Helper()
	form.Set("decision", decision)
	res, body := h.post(oauth.ConsentPath, "application/x-www-form-urlencoded", form.Encode(), map[string]string{"Origin": h.base})
	if res.StatusCode != http.StatusFound {
		h.t.Fatalf("consent: %d %s", res.StatusCode, body)
	}
	u, _ := url.Parse(res.Header.Get("Location"))
	return u
}

// code runs the whole authorization and returns the code.
func (h *harness) code(a authorization) string {
	h.t.Helper()
	form, _ := h.consentPage(a)
	back := h.consent(form, "allow")
	if c := back.Query().Get("code"); c != "" {
		return c
	}
	h.t.Fatalf("no code in %s", back)
	return ""
}

// tokenAnswer is /token's answer, success or error.
type tokenAnswer struct {
	status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (h *harness) tokenRequest(form url.Values) tokenAnswer {
	h.t.Helper()
	res, body := h.post(oauth.TokenPath, "application/x-www-form-urlencoded", form.Encode(), nil)
	var t tokenAnswer
	if err := json.Unmarshal([]byte(body), &t); err != nil {
		h.t.Fatalf("token answer %d %q: %v", res.StatusCode, body, err)
	}
	t.status = res.StatusCode
	return t
}

func (h *harness) exchange(a authorization, code string) tokenAnswer {
	return h.tokenRequest(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {a.client},
		"redirect_uri": {a.redirect}, "code_verifier": {a.verifier}, "resource": {a.resource}})
}

func (h *harness) refresh(a authorization, refresh string) tokenAnswer {
	return h.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {a.client}})
}

// tokens runs the whole flow for a new client and returns its tokens.
func (h *harness) tokens() (authorization, tokenAnswer) {
	h.t.Helper()
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	t := h.exchange(a, h.code(a))
	if t.status != http.StatusOK {
		h.t.Fatalf("token: %+v", t)
	}
	return a, t
}

// call sends a request with token to the resource and returns the answer
// and the principal it saw.
func (h *harness) call(method, path, token, body string) (*http.Response, *authn.Principal) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	var p *authn.Principal
	if res.StatusCode == http.StatusOK {
		_ = json.NewDecoder(res.Body).Decode(&p)
	}
	return res, p
}

// wantStatus fails unless a call with token answers status.
func (h *harness) wantStatus(method, path, token string, status int) {
	h.t.Helper()
	if res, _ := h.call(method, path, token, ""); res.StatusCode != status {
		h.t.Fatalf("%s %s: %d, want %d", method, path, res.StatusCode, status)
	}
}

// s256 is verifier's PKCE S256 challenge, as RFC 7636 §4.2 computes it.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
