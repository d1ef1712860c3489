// Package oauth makes ragd the OAuth 2.1 authorization server of its own
// resource (auth.mode oauth), the one the MCP authorization flow has
// clients discover: RFC 8414 metadata, client registration by Client ID
// Metadata Document (an https client_id fetched through the URL-ingest
// address guard, bounded and cached) or by RFC 7591 dynamic registration
// (rate-limited, expiring when unused), /authorize with PKCE S256 only,
// exact redirect_uri match (loopback on any port, RFC 8252), state, the
// RFC 8707 resource bound to this server and iss in the redirect (RFC
// 9207); the person signs in upstream through a SignIn (GitHub or an OIDC
// provider, package upstream) at ragd's own callback with ragd's own state
// and PKCE, then allows the client on ragd's consent page (CSRF token and
// Origin checked). /token trades single-use codes (60 s; a reused code
// revokes what it issued) and rotating refresh tokens (a reused one
// revokes its family; each refresh re-checks the person upstream) for
// short-lived access tokens: JWTs ragd signs with ES256 keys kept in Redis,
// so every replica signs and verifies alike, published at /oauth/jwks and
// rotated. /oauth/revoke is RFC 7009.
//
// Verify turns an access token ragd issued into an *authn.Principal (the
// person, the namespaces and groups the grants give, the scopes), which
// authn's middleware calls in oauth mode beside the static keys. Every
// record (clients, pending sign-ins, consents, codes, token families,
// signing keys, cached documents, rate counters) lives in Redis under
// keyspace.Keys through package kv; secrets are kept only as digests, and
// nothing token-like is logged.
package oauth
