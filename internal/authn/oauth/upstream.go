package oauth

import (
	"context"
	"slices"

	"ragd/internal/authn/upstream"
)

// Upstream is the SignIn of an upstream provider and its grant rules: the
// person is the provider's identity ("<provider>:<subject>", their login),
// with what upstream.Resolve gives them, at sign-in and at every recheck.
func Upstream(p upstream.Provider, cfg upstream.Config) SignIn {
	return &upstreamSignIn{p: p, cfg: cfg}
}

type upstreamSignIn struct {
	p   upstream.Provider
	cfg upstream.Config
}

func (u *upstreamSignIn) AuthCodeURL(state, codeChallenge, redirectURI string) string {
	return u.p.AuthCodeURL(state, codeChallenge, redirectURI)
}

func (u *upstreamSignIn) Exchange(ctx context.Context, code, verifier, redirectURI string) (Person, []byte, error) {
	id, cred, err := u.p.Exchange(ctx, code, verifier, redirectURI)
	if err != nil {
		return Person{}, nil, err
	}
	p, err := u.person(id)
	return p, cred, err
}

func (u *upstreamSignIn) Recheck(ctx context.Context, credential []byte) (Person, []byte, error) {
	id, cred, err := u.p.Recheck(ctx, credential)
	if err != nil {
		return Person{}, nil, err
	}
	p, err := u.person(id)
	return p, cred, err
}

// person is id with the access its grants give.
func (u *upstreamSignIn) person(id upstream.Identity) (Person, error) {
	access, err := upstream.Resolve(u.cfg, id)
	if err != nil {
		return Person{}, err
	}
	name := id.Login
	if name == "" {
		name = id.Subject
	}
	return Person{Subject: id.Provider + ":" + id.Subject, Name: name, Namespaces: slices.Clone(access.Namespaces), Groups: slices.Clone(access.Groups)}, nil
}
