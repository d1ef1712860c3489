package authn

// Key is one static bearer key.
type Key struct {
	// Name identifies the key in logs and error messages; the token never
	// appears there. Empty names become "key-<n>".
	Name string
	// Token is the secret, or "env:VAR_NAME" to read it from the environment
	// when New runs.
	Token string
	// Namespaces limits the key to these namespaces; empty means all.
	Namespaces []string
	// Groups are the groups whose documents the key sees besides open
	// ones; ragd.EveryGroup sees every document.
	Groups []string
	// Roots limit the paths the key may index (Principal.Roots).
	Roots []string
}

// Config configures an Authenticator.
type Config struct {
	// Mode is disabled (also when empty), static-token or jwt.
	Mode Mode
	// Keys are the accepted bearer keys (static-token).
	Keys []Key
	// JWKSURL, Issuer and Audience validate tokens (jwt): the signing key
	// comes from JWKSURL and the iss and aud claims must match.
	JWKSURL, Issuer, Audience string
	// Scopes must all be carried by every token (jwt).
	Scopes []string
	// NamespaceClaim names the claim listing the namespaces a token may use
	// (jwt; default "kb_names"). When the claim is absent, all are allowed.
	NamespaceClaim string
	// GroupsClaim names the claim listing a token's groups (jwt; default
	// "groups"). Absent, the token sees open documents only.
	GroupsClaim string
	// ResourceURL is this server's public base URL (e.g.
	// http://127.0.0.1:8000), the "resource" of the protected-resource
	// metadata. Empty means derive it from each request's Host.
	ResourceURL string
	// AuthorizationServers are advertised in the metadata; in jwt mode they
	// default to the issuer.
	AuthorizationServers []string
	// AllowedOrigins are Origin header values (scheme://host[:port]) allowed
	// besides same-host ones.
	AllowedOrigins []string
	// PublicPaths skip authentication (not the Origin check); nil means
	// DefaultPublicPaths. A pattern ending in "/*" matches that path and
	// everything below it.
	PublicPaths []string
	// OperatorPaths are the operator UI (the Asynq monitor) and metrics,
	// in the syntax of PublicPaths; nil means DefaultOperatorPaths. Besides
	// Bearer they take HTTP Basic credentials whose password is the token,
	// so a browser (or a Prometheus basic_auth) can log in, and they refuse
	// namespace-limited principals, since they show every namespace's
	// tasks and counts.
	OperatorPaths []string
}

// DefaultNamespaceClaim is the jwt claim read when Config.NamespaceClaim is empty.
const DefaultNamespaceClaim = "kb_names"

// DefaultGroupsClaim is the jwt claim read when Config.GroupsClaim is empty.
const DefaultGroupsClaim = "groups"

// DefaultPublicPaths are the paths that need no token: the index, health
// check, API docs, the metadata clients read before they have a token, and
// the web console's files (its login form; its data comes from the API).
var DefaultPublicPaths = []string{
	"/",
	"/health",
	MetadataPath + "/*",
	"/docs/*",
	"/openapi.json",
	"/ui/*",
}

// DefaultOperatorPaths are where api mounts the Asynq web UI, and the
// Prometheus metrics: both count every namespace's jobs and requests.
var DefaultOperatorPaths = []string{
	"/monitoring",
	"/monitoring/*",
	"/metrics",
}
