package keyspace

// The keys of ragd's OAuth authorization server (auth.mode oauth). Each is
// touched alone — read, written, taken or updated in a transaction that
// watches that one key — so none carries a hash tag and they spread over a
// Redis Cluster. Secrets (codes, refresh tokens, state, consent ids) are
// never part of a key: keys name them by the hex sha256 digest the caller
// passes, so Redis never holds the secret itself.

// OAuthClient is <p>:oauth:client:<id>, a dynamically registered client
// (its metadata as JSON), expiring when unused for auth.oauth.client_ttl.
func (k Keys) OAuthClient(id string) string { return k.Prefix() + ":oauth:client:" + id }

// OAuthClientDocument is <p>:oauth:cimd:<digest>, the cached Client ID
// Metadata Document fetched from the URL whose digest this is.
func (k Keys) OAuthClientDocument(digest string) string {
	return k.Prefix() + ":oauth:cimd:" + digest
}

// OAuthRegistrations is <p>:oauth:registrations:<digest>, the counter of
// dynamic registrations from one client address in the current hour.
func (k Keys) OAuthRegistrations(digest string) string {
	return k.Prefix() + ":oauth:registrations:" + digest
}

// OAuthPending is <p>:oauth:pending:<digest>, an authorization waiting
// for the person to sign in upstream, keyed by ragd's upstream state; read
// once at the callback.
func (k Keys) OAuthPending(digest string) string { return k.Prefix() + ":oauth:pending:" + digest }

// OAuthConsentRequest is <p>:oauth:ask:<digest>, a signed-in person's
// authorization waiting on the consent page, keyed by the page's request
// id; read once when the form is posted.
func (k Keys) OAuthConsentRequest(digest string) string { return k.Prefix() + ":oauth:ask:" + digest }

// OAuthConsent is <p>:oauth:consent:<digest>, the scopes a person allowed
// a client, the digest being of client id and person together.
func (k Keys) OAuthConsent(digest string) string { return k.Prefix() + ":oauth:consent:" + digest }

// OAuthCode is <p>:oauth:code:<digest>, an authorization code: unused,
// then marked used with the token family it started (so a reuse revokes
// it), for at most a minute.
func (k Keys) OAuthCode(digest string) string { return k.Prefix() + ":oauth:code:" + digest }

// OAuthFamily is <p>:oauth:family:<id>, a grant's token family: the person,
// client, scopes, access, upstream credential and the digest of the
// current refresh token. Access tokens name it; deleting it revokes them
// all, and refresh tokens with them.
func (k Keys) OAuthFamily(id string) string { return k.Prefix() + ":oauth:family:" + id }

// OAuthSigningKeys is <p>:oauth:keys, the access-token signing keys every
// replica signs and verifies with, newest first, as JSON.
func (k Keys) OAuthSigningKeys() string { return k.Prefix() + ":oauth:keys" }

// OAuthRevocations is <p>:oauth:revoked, the Pub/Sub channel a revoked
// token family's id is published on, so every replica stops trusting its
// memory of that family at once.
func (k Keys) OAuthRevocations() string { return k.Prefix() + ":oauth:revoked" }
