package websearch

import (
	"net/url"
	"strings"
)

// redacted stands in for a secret in anything ragd prints.
const redacted = "REDACTED"

// redactURL hides the credentials a request URL may carry: SerpAPI's
// api_key parameter and a password in the userinfo.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(url hidden)"
	}
	if q := u.Query(); q.Has("api_key") {
		q.Set("api_key", redacted)
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// scrubbedError is an error whose text can never show secret, raw or
// URL-escaped, whatever a lower layer put in it.
type scrubbedError struct {
	err    error
	secret string
}

func (e *scrubbedError) Error() string { return scrub(e.err.Error(), e.secret) }

func (e *scrubbedError) Unwrap() error { return e.err }

// scrub replaces secret in s. Very short secrets are left alone: replacing
// them would mangle ordinary words, and no real key is that short.
func scrub(s, secret string) string {
	if len(secret) < 4 {
		return s
	}
	s = strings.ReplaceAll(s, secret, redacted)
	return strings.ReplaceAll(s, url.QueryEscape(secret), redacted)
}
