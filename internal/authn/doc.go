// Package authn guards ragd's HTTP surface (the REST API, MCP at /mcp and
// the operator UI).
//
// Four modes: disabled, static-token (bearer keys, each optionally limited
// to namespaces), jwt (tokens signed by an authorization server whose
// keys are fetched from a JWKS URL) and oauth (the access tokens ragd's
// own authorization server, package oauth, issued, through EnableOAuth,
// beside the static keys; such a token's scopes — read, write, operator,
// ScopeNeeded — bound what it may do, and a request needing more answers
// 403 insufficient_scope naming the scope). In every mode the Origin header is
// checked to stop DNS-rebinding attacks from a browser. Handlers read the
// caller from the request context with [FromContext] and guard namespaces
// with [CheckNamespace].
//
// The operator UI (the Asynq monitor at /monitoring) also takes the token as
// the password of HTTP Basic credentials, so a browser can log in, and is
// open to operators alone: it spans every namespace and shows every
// task's payload.
//
// Operators (Principal.Operator: group "*", no namespace limit) alone may
// use what spans every namespace (RequireOperator); reading or deleting
// every document of a namespace needs group "*" (RequireEveryDocument).
// UnreadBody is the one answer to a body that could not be read, for the
// handlers here and at /mcp that read their bodies themselves.
//
// The WWW-Authenticate challenge and the protected-resource metadata follow
// RFC 9728 so MCP clients can discover the authorization server; the
// metadata document and the MCP SDK's token-info plumbing come from
// github.com/modelcontextprotocol/go-sdk/auth.
package authn
