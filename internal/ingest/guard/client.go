package guard

import (
	"net/http"
	"net/url"

	"ragd"
)

// Client is an HTTP client for callers that make their own requests (the
// web crawler's conditional GETs): every connection it opens goes through
// the Fetcher's dial-time address check, with the Fetcher's time bound,
// certificate authorities and redirect rules (at most 5, http or https
// only). redirect, when not nil, is asked about each redirect after those
// rules (a crawler keeps its scope so); an error it returns stops the
// request. The caller closes the transport's idle connections when done.
func (f *Fetcher) Client(redirect func(req *http.Request, via []*http.Request) error) (*http.Client, *http.Transport) {
	client, transport := f.client()
	if redirect != nil {
		client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if err := checkRedirect(req, via); err != nil {
				return err
			}
			return redirect(req, via)
		}
	}
	return client, transport
}

// Agent is the User-Agent the Fetcher sends: UserAgent, or ragd/<version>.
func (f *Fetcher) Agent() string {
	if f.UserAgent != "" {
		return f.UserAgent
	}
	return "ragd/" + ragd.Version
}

// TypeOf is the source type of a response with Content-Type ct from u, as
// Fetch decides it (sourcetype.ErrUnsupported for a type no reader parses).
func TypeOf(ct string, u *url.URL) (ragd.SourceType, error) { return typeForContentType(ct, u) }

// ToUTF8 converts a text body from the charset ct declares, as Fetch does.
func ToUTF8(body []byte, ct string) []byte { return toUTF8(body, ct) }
