package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ragd/internal/authn/oauth"
	"ragd/internal/ingest/guard"
)

// documentHost serves Client ID Metadata Documents over TLS: doc(url)
// is the body at /client.json, slow holds the answer until the test
// ends, and moved, when set, answers every other path with a redirect
// there.
type documentHost struct {
	srv   *httptest.Server
	doc   func(id string) string
	slow  bool
	moved string
	done  chan struct{}
}

func newDocumentHost(t *testing.T) *documentHost {
	d := &documentHost{done: make(chan struct{})}
	d.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.slow {
			select {
			case <-r.Context().Done():
			case <-d.done:
			}
			return
		}
		if d.moved != "" && r.URL.Path != d.moved {
			http.Redirect(w, r, d.moved, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(d.doc(d.id())))
	}))
	t.Cleanup(func() { close(d.done); d.srv.Close() })
	return d
}

func (d *documentHost) id() string { return d.srv.URL + "/client.json" }

// fetcher reads documents through the URL-ingest guard, trusting the
// host's certificate; private is whether loopback addresses are allowed.
func (d *documentHost) fetcher(private bool) *guard.Fetcher {
	return &guard.Fetcher{AllowPrivate: private, RootCAs: d.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
}

func clientDocument(id, redirect string) string {
	b, _ := json.Marshal(map[string]any{"client_id": id, "client_name": "Document Agent", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	return string(b)
}

// documentHarness is a harness whose clients are the host's documents.
func documentHarness(t *testing.T, private bool) (*harness, *documentHost, authorization) {
	d := newDocumentHost(t)
	h := newHarness(t, func(c *oauth.Config) { c.Fetcher = d.fetcher(private); c.DocumentTimeout = 300 * time.Millisecond })
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.client = d.id()
	d.doc = func(id string) string { return clientDocument(id, a.redirect) }
	return h, d, a
}

// TestClientIDMetadataDocument: a client named by its document's URL is
// authorized with the document's name and redirect URIs, and the
// document is cached (a second authorization does not fetch it again).
func TestClientIDMetadataDocument(t *testing.T) {
	h, d, a := documentHarness(t, true)
	_, page := h.consentPage(a)
	if !strings.Contains(page, "Document Agent") {
		t.Fatal("the consent page does not name the document's client")
	}
	d.doc = func(string) string { return "{}" }
	res, _ := h.get(a.query())
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), h.upstream.srv.URL) {
		t.Fatalf("a second authorization, the document changed at its host: %d, want the cached one used", res.StatusCode)
	}
}

// TestClientDocumentTooLarge: a document over the size bound is refused.
func TestClientDocumentTooLarge(t *testing.T) {
	h, d, a := documentHarness(t, true)
	d.doc = func(id string) string {
		return strings.Replace(clientDocument(id, a.redirect), `"client_name":"Document Agent"`, `"client_name":"`+strings.Repeat("x", 6000)+`"`, 1)
	}
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "exceeds 5120 bytes")
}

// TestClientDocumentTooSlow: a host that does not answer within the
// bound is given up on.
func TestClientDocumentTooSlow(t *testing.T) {
	h, d, a := documentHarness(t, true)
	d.slow = true
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "metadata document")
}

// TestClientDocumentAtPrivateAddress: a client_id whose host is a
// loopback address is refused by the address guard.
func TestClientDocumentAtPrivateAddress(t *testing.T) {
	h, _, a := documentHarness(t, false)
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "private/loopback address")
}

// TestClientDocumentOfAnotherClient: a document whose client_id differs
// from its URL is refused.
func TestClientDocumentOfAnotherClient(t *testing.T) {
	h, d, a := documentHarness(t, true)
	d.doc = func(string) string { return clientDocument("https://other.example/client.json", a.redirect) }
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "differs from its URL")
}

// TestClientDocumentRedirectIsNotFollowed: a document URL answering with
// a redirect is refused, though the document it points to would do: ragd
// reads the client_id URL itself or nothing, so a public host cannot send
// the fetch on to another (a private address, say).
func TestClientDocumentRedirectIsNotFollowed(t *testing.T) {
	h, d, a := documentHarness(t, true)
	d.moved = "/elsewhere.json"
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "302")
}
