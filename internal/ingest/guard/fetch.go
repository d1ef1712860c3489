package guard

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/transform"

	"ragd"
	"ragd/internal/ingest/sourcetype"
)

// The Fetcher defaults, used for zero fields.
const (
	DefaultFetchTimeout  = 30 * time.Second
	DefaultFetchMaxBytes = 32 << 20
	maxRedirects         = 5
)

// Fetcher downloads URL sources. Unless AllowPrivate is set it refuses
// every address that is not public, checked when the connection is dialed,
// so neither a redirect nor a DNS answer that changes between check and use
// can reach an internal service.
type Fetcher struct {
	AllowPrivate bool          // allow loopback, private and link-local addresses
	Timeout      time.Duration // whole request, body included; default 30 s
	MaxBytes     int64         // response body limit; default 32 MiB
	UserAgent    string        // default "ragd/<version>"
	// MaxURLBytes refuses a longer URL (ingest.max_url_bytes); 0 bounds
	// nothing.
	MaxURLBytes int
	// RootCAs are the certificate authorities https servers are checked
	// against; nil: the system's.
	RootCAs *x509.CertPool

	// isBlocked, when set, replaces isNonPublic (tests use it to treat one
	// loopback address as public and another as private).
	isBlocked func(netip.Addr) bool
}

// StatusError is an HTTP answer with status 400 or above. Client errors are
// permanent, except 408 and 429, which ask to try again later.
type StatusError struct {
	URL        string
	StatusCode int
	Status     string
}

// Error gives the URL and the HTTP status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %s", e.URL, e.Status)
}

// Permanent reports whether retrying cannot help (see IsPermanent).
func (e *StatusError) Permanent() bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 &&
		e.StatusCode != http.StatusRequestTimeout && e.StatusCode != http.StatusTooManyRequests
}

func (f *Fetcher) blocked(a netip.Addr) bool {
	if f.AllowPrivate {
		return false
	}
	if f.isBlocked != nil {
		return f.isBlocked(a)
	}
	return isNonPublic(a)
}

func privateErr(host string, a netip.Addr) error {
	return ragd.Forbidden("URL host %s resolves to a private/loopback address %s; set ingest.allow_private_urls to allow it", host, a.WithZone(""))
}

// parseHTTPURL checks the syntax: an http or https URL with a host.
func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, ragd.Invalid("url", "value_error", "invalid URL: %v", err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, ragd.Invalid("url", "value_error", "URL scheme must be http or https, not %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, ragd.Invalid("url", "value_error", "URL %q has no host", raw)
	}
	return u, nil
}

// CheckURL validates raw for a request: at most MaxURLBytes, http(s) with
// a host and, unless AllowPrivate, a host all of whose addresses are
// public. A longer URL or a host that does not resolve is ragd.Invalid; a
// non-public address is ragd.Forbidden.
func (f *Fetcher) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	if f.MaxURLBytes > 0 && len(raw) > f.MaxURLBytes {
		return nil, ragd.Invalid("url", "value_error", "the URL has %d bytes, more than ingest.max_url_bytes (%d)", len(raw), f.MaxURLBytes)
	}
	u, err := parseHTTPURL(raw)
	if err != nil {
		return u, err
	}
	if err := f.CheckHost(ctx, "url", u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// CheckHost refuses, unless AllowPrivate, a host (of the request's field)
// any of whose addresses is not public: ragd.Forbidden, or ragd.Invalid
// when it does not resolve. CheckURL and the git sources' fetches share
// it; a git fetch is checked before it dials, not at the dial.
func (f *Fetcher) CheckHost(ctx context.Context, field, host string) error {
	if f.AllowPrivate {
		return nil
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return ragd.Invalid(field, "value_error", "cannot resolve URL host %s: %s", host, lookupCause(err))
	}
	for _, a := range addrs {
		if f.blocked(a) {
			return privateErr(host, a)
		}
	}
	return nil
}

// Fetch GETs raw and returns the body, its source type (from the
// Content-Type, or the URL's extension when the server does not say) and
// the final URL after redirects. Text is converted to UTF-8 from the
// charset the server declares. Errors: ragd.Invalid or ragd.Forbidden for
// refused URLs and redirects, *StatusError for HTTP errors, ragd.KindTooLarge
// past MaxBytes, sourcetype.ErrUnsupported for other content types; network errors are
// a *ragd.NetError (transient), whose text names no resolver or address.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (body []byte, typ ragd.SourceType, finalURL string, err error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return nil, "", "", err
	}
	client, transport := f.client()
	defer transport.CloseIdleConnections()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", "", ragd.Invalid("url", "value_error", "invalid URL: %v", err)
	}
	ua := f.UserAgent
	if ua == "" {
		ua = "ragd/" + ragd.Version
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "text/html, application/xhtml+xml, text/markdown, text/plain, application/pdf, */*;q=0.1")

	resp, err := client.Do(req)
	if err != nil {
		var re *ragd.Error
		if errors.As(err, &re) {
			return nil, "", "", re // refused address or redirect: say why plainly
		}
		return nil, "", "", &ragd.NetError{What: "fetch " + u.Redacted(), Err: err}
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode >= 300 {
		return nil, "", "", &StatusError{URL: final.Redacted(), StatusCode: resp.StatusCode, Status: resp.Status}
	}
	ct := resp.Header.Get("Content-Type")
	if typ, err = typeForContentType(ct, final); err != nil {
		return nil, "", "", err
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultFetchMaxBytes
	}
	tooLarge := &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("response from %s exceeds the %d-byte limit", final.Redacted(), limit)}
	if resp.ContentLength > limit {
		return nil, "", "", tooLarge
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", "", &ragd.NetError{What: "fetch " + final.Redacted() + ": reading body", Err: err}
	}
	if int64(len(body)) > limit {
		return nil, "", "", tooLarge
	}
	if typ == ragd.SourceHTML || typ == ragd.SourceText || typ == ragd.SourceMarkdown {
		body = toUTF8(body, ct)
	}
	return body, typ, final.String(), nil
}

// client is an HTTP client whose every connection goes through dial's
// address check, with the Fetcher's time bound; the caller closes the
// transport's idle connections when done.
func (f *Fetcher) client() (*http.Client, *http.Transport) {
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, bypassing the address check
		DialContext:           f.dial,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: f.timeout(),
		MaxIdleConns:          1,
		TLSClientConfig:       &tls.Config{RootCAs: f.RootCAs, MinVersion: tls.VersionTLS12},
	}
	return &http.Client{Transport: transport, Timeout: f.timeout(), CheckRedirect: checkRedirect}, transport
}

// lookupCause is why a host's lookup failed, naming no resolver.
func lookupCause(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return ragd.DNSCause(dns)
	}
	return ragd.NetCause(err)
}

func (f *Fetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return DefaultFetchTimeout
}

// Dial is the Fetcher's dial-time address check for a client of its own
// (git's smart HTTP transport): dial's, as Fetch and Client use it.
func (f *Fetcher) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return f.dial(ctx, network, addr)
}

// dial connects like net.Dialer but vets each address it is about to
// connect to, after DNS resolution: that is the only point a redirect or a
// rebinding DNS answer cannot slip past.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(addr)
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	d.Control = func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("unexpected dial address %q: %w", address, err)
		}
		if f.blocked(ap.Addr()) {
			return privateErr(host, ap.Addr())
		}
		return nil
	}
	return d.DialContext(ctx, network, addr)
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return ragd.Invalid("url", "value_error", "stopped after %d redirects from %s", maxRedirects, via[0].URL.Redacted())
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return ragd.Invalid("url", "value_error", "redirect to unsupported scheme %q", s)
	}
	return nil
}

// typeForContentType maps a response's media type to a source type. When
// the server sends none or a generic binary type, the URL's extension
// decides; text/plain for a .md URL is Markdown (raw file hosts serve it so).
func typeForContentType(ct string, u *url.URL) (ragd.SourceType, error) {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	extType, extOK := sourcetype.ForExtension(path.Ext(u.Path))
	switch mt {
	case "text/html", "application/xhtml+xml":
		return ragd.SourceHTML, nil
	case "text/markdown", "text/x-markdown":
		return ragd.SourceMarkdown, nil
	case "text/plain":
		if extOK && extType == ragd.SourceMarkdown {
			return ragd.SourceMarkdown, nil
		}
		return ragd.SourceText, nil
	case "application/pdf":
		return ragd.SourcePDF, nil
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return ragd.SourceDOCX, nil
	case "", "application/octet-stream", "binary/octet-stream":
		if extOK {
			return extType, nil
		}
	}
	if mt == "" {
		mt = "none"
	}
	return "", fmt.Errorf("%w: content type %s", sourcetype.ErrUnsupported, mt)
}

// toUTF8 decodes text in the charset the Content-Type names; undeclared or
// unknown charsets are left to the loaders.
func toUTF8(body []byte, ct string) []byte {
	_, params, err := mime.ParseMediaType(ct)
	label := strings.ToLower(params["charset"])
	if err != nil || label == "" || label == "utf-8" || label == "utf8" {
		return body
	}
	enc, err := htmlindex.Get(label) // the WHATWG labels browsers accept
	if err != nil {
		return body
	}
	out, err := io.ReadAll(transform.NewReader(bytes.NewReader(body), enc.NewDecoder()))
	if err != nil {
		return body
	}
	return out
}
