package crawl

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/temoto/robotstxt"

	"ragd"
)

// allowed reports whether robots lets agent fetch u.
func allowed(robots *robotstxt.RobotsData, u *url.URL, agent string) bool {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return robots.TestAgent(p, agent)
}

// robotsFor is the loaded robots.txt of u's origin.
func (c *crawler) robotsFor(u *url.URL) *robotstxt.RobotsData {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.robotsOf[originOf(u)]
}

// loadRobots reads the robots.txt of u's origin once. No robots.txt (a
// 4xx) allows everything; a 5xx or no answer means the site cannot be
// crawled now, an error.
func (c *crawler) loadRobots(u *url.URL) (*robotstxt.RobotsData, error) {
	origin := originOf(u)
	if r := c.robotsFor(u); r != nil {
		return r, nil
	}
	ru, _ := url.Parse(origin + "/robots.txt")
	resp, err := c.get(c.plain, ru)
	if err != nil {
		return nil, c.unreachable(origin+"/robots.txt", err)
	}
	defer resp.Body.Close()
	var r *robotstxt.RobotsData
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, &ragd.Error{Kind: ragd.KindUnavailable, Message: fmt.Sprintf(
			"%s/robots.txt answered HTTP %s: the site cannot be crawled now", origin, resp.Status)}
	case resp.StatusCode >= 400:
		r, _ = robotstxt.FromStatusAndBytes(resp.StatusCode, nil)
	default:
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
		if err != nil {
			return nil, c.unreachable(origin+"/robots.txt", err)
		}
		if r, err = robotstxt.FromStatusAndBytes(http.StatusOK, body); err != nil {
			return nil, ragd.Invalid("url", "value_error", "%s/robots.txt does not parse: %v", origin, err)
		}
	}
	c.mu.Lock()
	c.robotsOf[origin] = r
	c.mu.Unlock()
	return r, nil
}

// sitemapURLs are the entries of the scope's sitemaps — those robots.txt
// names on the crawl's origin, and /sitemap.xml — nested indexes followed,
// at most maxSitemaps files and MaxSitemapURLs entries. A sitemap is a
// hint: one that cannot be read is left out.
func (c *crawler) sitemapURLs() []*url.URL {
	files := append([]string{}, c.robots.Sitemaps...)
	files = append(files, c.scope.origin+"/sitemap.xml")
	done := map[string]bool{}
	var out []*url.URL
	for read := 0; len(files) > 0 && read < maxSitemaps && len(out) < c.opts.MaxSitemapURLs; {
		f := files[0]
		files = files[1:]
		u, err := url.Parse(strings.TrimSpace(f))
		if err != nil || originOf(u) != c.scope.origin || done[pageURL(u)] {
			continue
		}
		done[pageURL(u)] = true
		read++
		pages, nested := c.readSitemap(u)
		files = append(files, nested...)
		for _, p := range pages {
			if len(out) == c.opts.MaxSitemapURLs {
				break
			}
			if pu, err := url.Parse(strings.TrimSpace(p)); err == nil {
				out = append(out, pu)
			}
		}
	}
	return out
}

// readSitemap returns a sitemap's page entries (<url><loc>) and nested
// sitemaps (<sitemap><loc>); nothing when it cannot be read.
func (c *crawler) readSitemap(u *url.URL) (pages, nested []string) {
	resp, err := c.get(c.plain, u)
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	body, err := c.readBody(resp)
	if err != nil {
		return nil, nil
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	var parent, elem string
	for {
		tok, err := d.Token()
		if err != nil {
			return pages, nested
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "url" || t.Name.Local == "sitemap" {
				parent = t.Name.Local
			}
			elem = t.Name.Local
		case xml.EndElement:
			elem = ""
		case xml.CharData:
			if elem != "loc" {
				continue
			}
			if parent == "sitemap" {
				nested = append(nested, string(t))
			} else {
				pages = append(pages, string(t))
			}
		}
	}
}
