package crawl

import (
	"net/url"
	"path"
	"strings"

	"ragd/internal/ingest"
)

// scope is the origin and path prefix a crawl stays in.
type scope struct {
	origin string // scheme://host[:port] in canonical form
	prefix string // the start's path up to its last slash
}

func scopeOf(u *url.URL) scope {
	p := u.EscapedPath()
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[:i+1]
	} else {
		p = "/"
	}
	return scope{origin: originOf(u), prefix: p}
}

func originOf(u *url.URL) string {
	o, _ := url.Parse(ingest.CanonicalURL(&url.URL{Scheme: u.Scheme, Host: u.Host}))
	return o.Scheme + "://" + o.Host
}

// contains reports whether u is in scope.
func (s scope) contains(u *url.URL) bool {
	if originOf(u) != s.origin {
		return false
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return strings.HasPrefix(p, s.prefix) || p+"/" == s.prefix
}

// trackingParams are query parameters that name a visit, not a page.
var trackingParams = []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "fbclid", "gclid", "mc_cid", "mc_eid"}

// pageURL is the form of u that identifies a page: ingest.CanonicalURL
// with its query parameters sorted and tracking ones dropped.
func pageURL(u *url.URL) string {
	c := *u
	if c.RawQuery != "" {
		q := c.Query()
		for _, t := range trackingParams {
			q.Del(t)
		}
		c.RawQuery = q.Encode() // sorted by key
	}
	c.ForceQuery = false
	return ingest.CanonicalURL(&c)
}

// skippedExt are extensions of files no reader parses (assets, media,
// archives): links to them are not followed.
var skippedExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".ico": true,
	".css": true, ".js": true, ".mjs": true, ".map": true, ".json": true, ".xml": true, ".rss": true,
	".woff": true, ".woff2": true, ".ttf": true, ".eot": true, ".mp3": true, ".mp4": true, ".webm": true,
	".zip": true, ".gz": true, ".tgz": true, ".tar": true, ".exe": true, ".dmg": true, ".iso": true,
}

func skippedLink(u *url.URL) bool {
	return skippedExt[strings.ToLower(path.Ext(u.Path))]
}

// samePath reports whether two page URLs differ at most in their query.
func samePath(a, b string) bool {
	strip := func(s string) string { s, _, _ = strings.Cut(s, "?"); return s }
	return strip(a) == strip(b)
}
