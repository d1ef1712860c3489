package crawl

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// htmlLinks are what an HTML page says of its links: the hrefs of its <a>
// and <area> elements, its <link rel=canonical>, resolved against the
// page's URL (or its <base href>), and whether a robots meta tag says
// nofollow.
type htmlLinks struct {
	links     []*url.URL
	canonical *url.URL
	nofollow  bool
}

func attr(t html.Token, name string) string {
	for _, a := range t.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasWord(list, word string) bool {
	for _, w := range strings.Fields(strings.ToLower(strings.ReplaceAll(list, ",", " "))) {
		if w == word {
			return true
		}
	}
	return false
}

// parseLinks tokenizes body (never failing: a broken page has the links
// it has).
func parseLinks(body []byte, page *url.URL) htmlLinks {
	var out htmlLinks
	base := page
	var hrefs []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		t := z.Token()
		switch t.Data {
		case "a", "area":
			if !hasWord(attr(t, "rel"), "nofollow") {
				hrefs = append(hrefs, attr(t, "href"))
			}
		case "base":
			if b, err := page.Parse(strings.TrimSpace(attr(t, "href"))); err == nil && attr(t, "href") != "" {
				base = b
			}
		case "link":
			if hasWord(attr(t, "rel"), "canonical") && out.canonical == nil {
				if c, err := page.Parse(strings.TrimSpace(attr(t, "href"))); err == nil && attr(t, "href") != "" {
					out.canonical = c
				}
			}
		case "meta":
			if strings.EqualFold(attr(t, "name"), "robots") && hasWord(attr(t, "content"), "nofollow") {
				out.nofollow = true
			}
		}
	}
	for _, h := range hrefs {
		h = strings.TrimSpace(h)
		if h == "" || strings.HasPrefix(h, "#") {
			continue
		}
		if u, err := base.Parse(h); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			u.Fragment, u.RawFragment = "", ""
			out.links = append(out.links, u)
		}
	}
	return out
}
