package authn

import (
	"encoding/base64"
	"net/http"
	"ragd/internal/testkit/testenv"
	"slices"
	"strings"
	"testing"
)

func basic(user, password string) map[string]string {
	return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}
}

func TestOperatorBasicAccepted(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	for _, p := range []string{"/monitoring", "/monitoring/", "/monitoring/api/queues"} {
		s.called, s.principal = false, nil
		// The user name is ignored; the password is the token.
		w := request(h, "GET", p, basic("anyone", "admin-secret-token-0123456789"))
		if w.Code != http.StatusOK || !s.called || s.principal == nil || s.principal.Name != "admin" {
			t.Errorf("%s: code %d called %v principal %+v", p, w.Code, s.called, s.principal)
		}
	}
	// Actions in the UI are same-origin XHRs carrying the same credentials.
	w := request(h, "DELETE", "/monitoring/api/queues/default", map[string]string{
		"Authorization": basic("", "admin-secret-token-0123456789")["Authorization"],
		"Origin":        "http://rag.example.com",
	})
	if w.Code != http.StatusOK {
		t.Errorf("same-origin DELETE: code %d", w.Code)
	}
	// Bearer works there too.
	if w := request(h, "GET", "/monitoring/api/queues", bearer("admin-secret-token-0123456789")); w.Code != http.StatusOK {
		t.Errorf("bearer: code %d", w.Code)
	}
}

func TestOperatorBasicRefusedElsewhere(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	for _, p := range []string{"/tools/rag_search", "/mcp", "/monitoringx", "/v1/stats"} {
		w := request(h, "POST", p, basic("admin", "admin-secret-token-0123456789"))
		if w.Code != http.StatusUnauthorized || s.called {
			t.Fatalf("%s: code %d called %v", p, w.Code, s.called)
		}
		if got := w.Header().Values("WWW-Authenticate"); len(got) != 1 || !strings.HasPrefix(got[0], "Bearer ") {
			t.Errorf("%s: WWW-Authenticate = %q, want the Bearer challenge alone", p, got)
		}
		if d := detail(t, w); d != "missing bearer token" {
			t.Errorf("%s: detail = %q", p, d)
		}
	}
}

func TestOperatorChallengesBoth(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	wantBearer := `Bearer resource_metadata="` + metaURL + `"`
	for name, tc := range map[string]struct {
		hdr    map[string]string
		bearer string
	}{
		"no credentials":  {nil, wantBearer},
		"malformed basic": {map[string]string{"Authorization": "Basic not-base64!"}, wantBearer},
		"no colon":        {map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("admin-secret-token-0123456789"))}, wantBearer},
		"empty password":  {basic("admin", ""), wantBearer},
		"wrong password":  {basic("admin", "not-the-admin-secret-token"), wantBearer + `, error="invalid_token"`},
		"wrong bearer":    {bearer("not-the-admin-secret-token"), wantBearer + `, error="invalid_token"`},
	} {
		w := request(h, "GET", "/monitoring", tc.hdr)
		if w.Code != http.StatusUnauthorized || s.called {
			t.Fatalf("%s: code %d called %v", name, w.Code, s.called)
		}
		want := []string{tc.bearer, `Basic realm="ragd operators", charset="UTF-8"`}
		if got := w.Header().Values("WWW-Authenticate"); !slices.Equal(got, want) {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", name, got, want)
		}
		detail(t, w)
	}
}

func TestOperatorRefusesLimitedKey(t *testing.T) {
	logs := &testenv.Buffer{}
	a, err := New(staticConfig(), debugLogger(logs))
	if err != nil {
		t.Fatal(err)
	}
	h, s := protect(a)
	const tok = "finance-secret-token-987654"
	for name, hdr := range map[string]map[string]string{"bearer": bearer(tok), "basic": basic("ops", tok)} {
		// Either spelling of a path counts, whichever one a router goes by.
		for _, p := range []string{"/monitoring/", "/monitoring/api/queues", "/tools/../monitoring/api/queues", "/monitoring/../v1/stats", "/metrics"} {
			w := request(h, "GET", p, hdr)
			if w.Code != http.StatusForbidden || s.called {
				t.Fatalf("%s %s: code %d called %v", name, p, w.Code, s.called)
			}
			if d := detail(t, w); d != `this operator path (the Asynq UI or /metrics) needs an operator: a principal in group "*", which sees every document` {
				t.Errorf("%s %s: detail = %q", name, p, d)
			}
		}
	}
	// Elsewhere the key works as before.
	if w := request(h, "GET", "/v1/stats", bearer(tok)); w.Code != http.StatusOK {
		t.Errorf("limited key on REST: code %d", w.Code)
	}
	if strings.Contains(logs.String(), "secret-token") {
		t.Errorf("a token was logged: %s", logs.String())
	}
}

func TestOperatorForeignOriginRefused(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	hdr := basic("", "admin-secret-token-0123456789")
	hdr["Origin"] = "https://evil.example"
	if w := request(h, "DELETE", "/monitoring/api/queues/default", hdr); w.Code != http.StatusForbidden || s.called {
		t.Fatalf("code %d called %v", w.Code, s.called)
	}
}

func TestOperatorPathsConfigurable(t *testing.T) {
	cfg := staticConfig()
	cfg.OperatorPaths = []string{"/ops/*"}
	h, _ := protect(mustNew(t, cfg))
	if w := request(h, "GET", "/ops/queues", basic("", "admin-secret-token-0123456789")); w.Code != http.StatusOK {
		t.Errorf("/ops/queues: code %d", w.Code)
	}
	if w := request(h, "GET", "/monitoring/", basic("", "admin-secret-token-0123456789")); w.Code != http.StatusUnauthorized {
		t.Errorf("/monitoring/ no longer operator: code %d", w.Code)
	}
	// Disabled mode: unchanged, everything passes.
	h, s := protect(mustNew(t, Config{Mode: ModeDisabled}))
	if w := request(h, "GET", "/monitoring/", nil); w.Code != http.StatusOK || !s.called {
		t.Errorf("disabled: code %d", w.Code)
	}
}

func TestOperatorJWTBasic(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	h, s := protect(mustNew(t, jwtConfig(p)))

	c := goodClaims()
	delete(c, "kb_names") // every namespace
	c["groups"] = []string{"*"}
	if w := request(h, "GET", "/monitoring/api/queues", basic("alice", k1.sign(t, c))); w.Code != http.StatusOK || s.principal == nil || s.principal.Name != "alice" {
		t.Fatalf("jwt as basic password: code %d body %s principal %+v", w.Code, w.Body, s.principal)
	}
	// A token limited by its claim is refused.
	s.called = false
	if w := request(h, "GET", "/monitoring/api/queues", basic("alice", k1.sign(t, goodClaims()))); w.Code != http.StatusForbidden || s.called {
		t.Errorf("limited jwt: code %d", w.Code)
	}
	// Not on other paths.
	if w := request(h, "GET", "/v1/stats", basic("alice", k1.sign(t, c))); w.Code != http.StatusUnauthorized || s.called {
		t.Errorf("jwt as basic password on /v1/stats: code %d", w.Code)
	}
	// The 401 there carries the scope in the Bearer line, Basic second.
	w := request(h, "GET", "/monitoring", nil)
	want := []string{`Bearer resource_metadata="` + testAudience + MetadataPath + `", scope="ragd.read"`, basicChallenge}
	if got := w.Header().Values("WWW-Authenticate"); w.Code != http.StatusUnauthorized || !slices.Equal(got, want) {
		t.Errorf("challenge: code %d %q", w.Code, got)
	}
}
