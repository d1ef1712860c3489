package authn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ragd"
)

// A JWT's groups come from auth.groups_claim (default "groups"), as a
// list or a separated string; without the claim the token sees open
// documents only, and "*" among its groups sees every document.
func TestJWTGroups(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	h, s := protect(mustNew(t, jwtConfig(p)))
	for _, c := range []struct {
		claim any
		want  []string
		all   bool
	}{
		{[]string{"eng", "ops"}, []string{"eng", "ops"}, false},
		{"eng fin", []string{"eng", "fin"}, false},
		{nil, nil, false},
		{[]string{"*"}, []string{"*"}, true},
	} {
		claims := goodClaims()
		if c.claim != nil {
			claims["groups"] = c.claim
		}
		if w := request(h, "POST", "/mcp", bearer(k1.sign(t, claims))); w.Code != 200 {
			t.Fatalf("groups %v: code %d %s", c.claim, w.Code, w.Body)
		}
		if !slices.Equal(s.principal.Groups, c.want) || s.principal.Audience().All() != c.all {
			t.Fatalf("groups claim %v: principal groups %v (sees all %v), want %v (%v)", c.claim, s.principal.Groups,
				s.principal.Audience().All(), c.want, c.all)
		}
	}
	claims := goodClaims()
	claims["groups"] = 7
	if w := request(h, "POST", "/mcp", bearer(k1.sign(t, claims))); w.Code != 401 {
		t.Fatalf("numeric groups claim: code %d", w.Code)
	}

	cfg := jwtConfig(p)
	cfg.GroupsClaim = "teams"
	h, s = protect(mustNew(t, cfg))
	claims = goodClaims()
	claims["groups"], claims["teams"] = []string{"eng"}, []string{"fin"}
	if w := request(h, "POST", "/mcp", bearer(k1.sign(t, claims))); w.Code != 200 || !slices.Equal(s.principal.Groups, []string{"fin"}) {
		t.Fatalf("groups_claim teams: code %d groups %v", w.Code, s.principal.Groups)
	}
}

// Static keys carry their configured groups; a group with a comma or a
// space is refused at start-up (the form separates groups by commas).
func TestStaticKeyGroups(t *testing.T) {
	h, s := protect(mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{
		{Name: "eng", Token: "tok-eng-0123456789", Groups: []string{"eng"}},
		{Name: "plain", Token: "tok-plain-0123456789"},
	}}))
	if w := request(h, "GET", "/v1/stats", bearer("tok-eng-0123456789")); w.Code != 200 || !slices.Equal(s.principal.Groups, []string{"eng"}) {
		t.Fatalf("eng key: %d %+v", w.Code, s.principal)
	}
	request(h, "GET", "/v1/stats", bearer("tok-plain-0123456789"))
	if aud := s.principal.Audience(); aud.All() || !aud.Sees(nil) || aud.Sees([]string{"eng"}) {
		t.Fatalf("a key without groups sees open documents only: %+v", aud)
	}
	for _, g := range []string{"a,b", "a b", " ", "a\x01b", strings.Repeat("g", ragd.MaxGroupChars+1)} {
		if _, err := New(Config{Mode: ModeStaticToken, Keys: []Key{{Name: "k", Token: "tok-k-0123456789", Groups: []string{g}}}}, nil); err == nil {
			t.Fatalf("group %q accepted", g)
		}
	}
	var nobody *Principal
	if !nobody.Audience().All() {
		t.Fatal("without authentication every document is visible")
	}
}

// An audience sees open documents, those sharing one of its groups, and
// with "*" every one; its store filter and cache key follow.
func TestAudience(t *testing.T) {
	eng := ragd.GroupAudience([]string{"fin", "eng", "eng"})
	for _, c := range []struct {
		access []string
		want   bool
	}{{nil, true}, {[]string{"eng"}, true}, {[]string{"hr", "fin"}, true}, {[]string{"hr"}, false}, {[]string{"*"}, true}} {
		if eng.Sees(c.access) != c.want {
			t.Fatalf("eng,fin sees %v: %v", c.access, !c.want)
		}
	}
	if got := eng.StoreFilter(); !slices.Equal(got, []string{"*", "eng", "fin"}) {
		t.Fatalf("store filter %v", got)
	}
	filter := func(a ragd.Audience) string { return fmt.Sprint(a.StoreFilter()) } // nil and [] apart
	if filter(eng) != filter(ragd.GroupAudience([]string{"eng", "fin"})) || filter(eng) == filter(ragd.GroupAudience([]string{"eng"})) ||
		filter(eng) == filter(ragd.EveryDocument()) || ragd.EveryDocument().StoreFilter() != nil || ragd.GroupAudience(nil).StoreFilter() == nil {
		t.Fatal("the plan's filter, and so the cache key, must tell audiences that see differently apart")
	}
	if ragd.GroupAudience([]string{"eng", "*"}).StoreFilter() != nil {
		t.Fatal(`"*" must see everything, unfiltered`)
	}
}
