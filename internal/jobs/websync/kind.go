package websync

import (
	"context"
	"net/url"
	"strings"

	"ragd"
)

// Check validates what a web source says: an http(s) start URL with a
// host and no user, password or fragment; max_pages and max_depth within
// the server's caps; and none of the fields of the other kinds (ref,
// include, exclude, ssh_key, endpoint, region, access_key, secret_key).
// The address checks that need the network are made at each request.
func (s *Syncer) Check(_ context.Context, src ragd.Source) error {
	if err := checkStart(src.URL); err != nil {
		return err
	}
	if err := s.checkBounds(src); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"ref", src.Ref != ""}, {"include", len(src.Include) > 0}, {"exclude", len(src.Exclude) > 0},
		{"ssh_key", src.SSHKey != ""}, {"endpoint", src.Endpoint != ""}, {"region", src.Region != ""},
		{"access_key", src.AccessKey != ""}, {"secret_key", src.SecretKey != ""},
	} {
		if f.set {
			return ragd.Invalid(f.name, "value_error", "%s is not a field of web sources: a web source crawls the pages under its start URL's host and path "+
				"(bounded by max_pages and max_depth); %s belongs to git or s3 sources", f.name, f.name)
		}
	}
	return nil
}

// checkStart validates a start URL's form.
func checkStart(raw string) error {
	if raw == "" {
		return ragd.Invalid("url", "missing", "a web source needs a url: the start page, http:// or https://")
	}
	if strings.Contains(raw, "#") {
		return ragd.Invalid("url", "value_error", "a web source's url may hold no fragment (#): give the start page's address without it")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ragd.Invalid("url", "value_error", "not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ragd.Invalid("url", "value_error", "a web source's url must be http:// or https://, not %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return ragd.Invalid("url", "value_error", "a web source's url needs a host")
	}
	if u.User != nil {
		return ragd.Invalid("url", "value_error", "a web source's url may hold no user or password: ragd crawls public pages")
	}
	return nil
}

// checkBounds refuses max_pages and max_depth below 0 or above the
// server's caps.
func (s *Syncer) checkBounds(src ragd.Source) error {
	if src.MaxPages < 0 || src.MaxPages > s.Limits.MaxPages {
		return ragd.Invalid("max_pages", "value_error", "max_pages must be between 0 (the server's %d) and sources.web_max_pages (%d), not %d",
			s.Limits.MaxPages, s.Limits.MaxPages, src.MaxPages)
	}
	if src.MaxDepth < 0 || src.MaxDepth > s.Limits.MaxDepth {
		return ragd.Invalid("max_depth", "value_error", "max_depth must be between 0 (the server's %d) and sources.web_max_depth (%d), not %d",
			s.Limits.MaxDepth, s.Limits.MaxDepth, src.MaxDepth)
	}
	return nil
}
