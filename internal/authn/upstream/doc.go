// Package upstream signs people in at the identity provider ragd trusts
// in auth.mode oauth, and decides what they get.
//
// Two providers implement [Provider]: github (GitHub or GitHub
// Enterprise: the OAuth web flow with PKCE S256, then the REST calls
// /user, /user/orgs and /user/teams, paged by their Link headers within a
// bound) and oidc (any OpenID Connect provider found by discovery — at
// New, or at first use when it could not be reached then: the
// code flow with PKCE S256 and a nonce, the ID token verified — issuer,
// audience, signature, expiry, nonce — and the person's groups read from
// a configured claim of the ID token or the userinfo answer). ragd's
// authorization server (package oauth) drives them from its own fixed
// callback, with its own state and verifier: a client's code never goes
// upstream, and nothing here turns an upstream token into a ragd one.
//
// Exchange returns, besides the [Identity], an opaque credential ragd
// keeps (and never logs) to Recheck the person when a ragd refresh token
// is used: the GitHub token (re-reading the orgs and teams), or the OIDC
// refresh token (refreshing it and re-reading the ID token or userinfo).
// An OIDC provider that gave no refresh token cannot be asked again, so
// such a person's refresh is refused and they sign in anew.
//
// [Resolve] is the one place the grant rules live: allowed_orgs (GitHub
// organizations) and allowed_domains (the domain of a verified email)
// decide who may sign in at all, and each grant whose match names one of
// the person's GitHub teams ("org/team-slug"), organizations ("org") or
// OIDC groups adds its namespaces and groups; the person gets the union,
// and one no grant matches is refused.
//
// Failures reach callers as ragd errors: an answer of the provider that
// refuses (a bad code, a revoked token, an ID token that does not verify)
// is Forbidden, a provider that cannot be reached or fails is
// Unavailable. No error text carries a token.
package upstream
