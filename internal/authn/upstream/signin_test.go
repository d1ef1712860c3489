package upstream_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// browser follows redirects with a cookie jar, as a person's browser does,
// and stops at ragd's callback (redirectURI) to read the code and state.
func browser(t *testing.T, redirectURI string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// callback reads the code and state of the redirect to ragd's callback.
func callback(t *testing.T, resp *http.Response, redirectURI string) (code, state string) {
	t.Helper()
	loc, err := resp.Location()
	if err != nil || !strings.HasPrefix(loc.String(), redirectURI) {
		t.Fatalf("sign-in ended at %s (status %d), not at the callback %s", resp.Request.URL, resp.StatusCode, redirectURI)
	}
	if e := loc.Query().Get("error"); e != "" {
		t.Fatalf("the provider answered the callback with error %s: %s", e, loc.Query().Get("error_description"))
	}
	return loc.Query().Get("code"), loc.Query().Get("state")
}

// pkcePair is a fresh verifier and its S256 challenge.
func pkcePair() (verifier, challenge string) {
	v := oauth2.GenerateVerifier()
	return v, oauth2.S256ChallengeFromVerifier(v)
}

func get(t *testing.T, c *http.Client, target string) *http.Response {
	t.Helper()
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func postForm(t *testing.T, c *http.Client, target string, form url.Values) *http.Response {
	t.Helper()
	resp, err := c.PostForm(target, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

var ctx = context.Background()
