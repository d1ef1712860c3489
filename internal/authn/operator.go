package authn

import (
	"net/http"
)

// basicChallenge is the second WWW-Authenticate line on operator paths: it
// makes a browser show its login dialog, which has no way to send Bearer.
const basicChallenge = `Basic realm="ragd operators", charset="UTF-8"`

// Operator reports whether a request path belongs to the operator UI (see
// Config.OperatorPaths).
func (a *Authenticator) Operator(p string) bool {
	// The cleaned path, as for Public, and the raw one too: the rule that
	// keeps namespace-limited keys out must hold whichever form the router
	// goes by.
	return matchPath(a.operator, cleanPath(p)) || matchPath(a.operator, p)
}

// basicToken returns the password of HTTP Basic credentials, which operator
// paths take as the token; the user name is ignored.
func basicToken(r *http.Request) (string, bool) {
	_, password, ok := r.BasicAuth()
	if !ok || password == "" {
		return "", false
	}
	return password, true
}
