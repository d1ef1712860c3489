package upstream

import (
	"net/url"
	"slices"
	"testing"

	"golang.org/x/oauth2"

	"ragd"
)

// TestIdentityOfClaims: the email counts only when verified, groups come
// from the configured claim as a list or a single string.
func TestIdentityOfClaims(t *testing.T) {
	cases := []struct {
		name   string
		claims map[string]any
		email  string
		groups []string
	}{
		{"verified", map[string]any{"email": "a@x.io", "email_verified": true, "roles": []any{"r1", "r2", 3}}, "a@x.io", []string{"r1", "r2"}},
		{"verified as a string", map[string]any{"email": "a@x.io", "email_verified": "true", "roles": "r1"}, "a@x.io", []string{"r1"}},
		{"not verified", map[string]any{"email": "a@x.io", "email_verified": false}, "", nil},
		{"not verified as a string", map[string]any{"email": "a@x.io", "email_verified": "false"}, "", nil},
		{"verification not said", map[string]any{"email": "a@x.io", "groups": []any{"g"}}, "", nil},
	}
	for _, c := range cases {
		id := identityOf("s", c.claims, "roles")
		if id.Email != c.email || !slices.Equal(id.Groups, c.groups) || id.Login != "a@x.io" {
			t.Errorf("%s: %+v", c.name, id)
		}
	}
}

// TestRecheckWithoutRefreshToken: a provider that gave no refresh token
// cannot re-check the person, so the refresh is refused (they sign in
// again) rather than the old identity reused.
func TestRecheckWithoutRefreshToken(t *testing.T) {
	_, _, err := (&openID{}).Recheck(t.Context(), credential{Subject: "s"}.encode())
	if ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("Recheck = %v, want Forbidden", err)
	}
	if _, _, err := (&openID{}).Recheck(t.Context(), []byte("garbage")); ragd.KindOf(err) != ragd.KindForbidden {
		t.Fatalf("Recheck(garbage) = %v, want Forbidden", err)
	}
}

// TestAuthCodeURLAsksForARefreshToken: a provider listing offline_access
// gets that scope (in conf); one that does not, as Google, gets
// access_type=offline and prompt=consent, without which Google gives a
// refresh token at the first sign-in only. Both carry PKCE and the nonce.
func TestAuthCodeURLAsksForARefreshToken(t *testing.T) {
	for _, offline := range []bool{true, false} {
		o := &openID{d: &discovery{offline: offline, conf: oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{AuthURL: "https://idp.example/auth"}}}}
		u, err := url.Parse(o.AuthCodeURL("st", "challenge", "https://ragd.example/oauth/callback"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		google := q.Get("access_type") == "offline" && q.Get("prompt") == "consent"
		if google == offline || q.Get("code_challenge") != "challenge" || q.Get("nonce") != nonceFor("challenge") {
			t.Errorf("offline_access listed %v: %s", offline, u)
		}
	}
}
