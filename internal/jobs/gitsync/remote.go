package gitsync

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"ragd"
)

// Endpoint is a source's repository URL taken apart: its protocol, and
// for file:// the local path, resolved inside the ingest roots.
type Endpoint struct {
	URL      string // as the source names it
	Protocol string // https, http, git, ssh or file
	Host     string // empty for file
	Path     string // for file://, resolved inside the roots
}

// CheckURL validates a git source's URL for adding it: a scheme ragd can
// fetch from, no password, query or fragment, and for file:// a path
// inside the ingest roots. The address checks that need the network are
// CheckAddress's, made at each fetch.
func (s *Syncer) CheckURL(raw string) (Endpoint, error) {
	e := Endpoint{URL: raw}
	if raw == "" {
		return e, ragd.Invalid("url", "missing", "a git source needs a url")
	}
	if strings.ContainsAny(raw, "?#") {
		return e, ragd.Invalid("url", "value_error", "a git URL may hold no query (?) or fragment (#)")
	}
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return e, ragd.Invalid("url", "value_error", "not a git URL: %v", err)
	}
	e.Protocol, e.Host = ep.Protocol, ep.Host
	if ep.Password != "" {
		return e, ragd.Invalid("url", "value_error", "a git URL may hold no password: give an ssh deploy key (ssh_key: env:VAR) or use a public URL")
	}
	switch e.Protocol {
	case "https", "http", "git", "ssh":
		return e, nil
	case "file":
		if s.Roots == nil {
			return e, ragd.Forbidden("file:// git sources are refused: no ingest roots are configured (ingest.roots)")
		}
		u, err := url.Parse(raw)
		if err != nil || u.Path == "" {
			return e, ragd.Invalid("url", "value_error", "a file:// git URL needs an absolute path")
		}
		p, err := s.Roots.Resolve(u.Path)
		if err != nil {
			return e, err
		}
		e.Path = p
		return e, nil
	}
	return e, ragd.Invalid("url", "value_error", "git URL scheme %q is not one of https, http, git, ssh, file", e.Protocol)
}

// CheckAddress refuses, unless ingest.allow_private_urls, a host that
// resolves to an address that is not public, as URL ingest does.
func (s *Syncer) CheckAddress(ctx context.Context, e Endpoint) error {
	if e.Protocol == "file" || s.Fetcher == nil {
		return nil
	}
	return s.Fetcher.CheckHost(ctx, "url", e.Host)
}

// auth is the transport's credentials: for ssh, the deploy key held by
// the environment variable sshKey names (env:VAR).
func auth(e Endpoint, sshKey string) (transport.AuthMethod, error) {
	if e.Protocol != "ssh" {
		if sshKey != "" {
			return nil, ragd.Invalid("ssh_key", "value_error", "ssh_key applies to ssh URLs only")
		}
		return nil, nil
	}
	if sshKey == "" {
		return nil, nil // the ssh agent's, if any
	}
	pem, err := ragd.EnvSecret("ssh_key", sshKey)
	if err != nil {
		return nil, err
	}
	ep, _ := transport.NewEndpoint(e.URL)
	user := "git"
	if ep != nil && ep.User != "" {
		user = ep.User
	}
	keys, err := gitssh.NewPublicKeys(user, []byte(pem), "")
	if err != nil {
		return nil, ragd.Invalid("ssh_key", "value_error", "the deploy key in %s is not a usable private key: %v", sshKey, err)
	}
	return keys, nil
}

// fetchURL is the URL go-git fetches from: a file:// source's resolved
// path, the source's URL otherwise.
func (e Endpoint) fetchURL() string {
	if e.Protocol == "file" {
		return (&url.URL{Scheme: "file", Path: e.Path}).String()
	}
	return e.URL
}

// WebURL is the page of path at commit, from the template (sources.git_web_url:
// {repo} the repository's web address, {commit}, {path}); "" when the
// URL gives no web address (file://, git://).
func WebURL(template, repoURL, commit, path string) string {
	base := webBase(repoURL)
	if base == "" || template == "" {
		return ""
	}
	return strings.NewReplacer("{repo}", base, "{commit}", commit, "{path}", path).Replace(template)
}

// webBase is the https address of a repository from its https or ssh
// URL, without .git.
func webBase(raw string) string {
	ep, err := transport.NewEndpoint(raw)
	if err != nil || ep.Host == "" {
		return ""
	}
	switch ep.Protocol {
	case "https", "http", "ssh":
	default:
		return ""
	}
	scheme := "https"
	if ep.Protocol == "http" {
		scheme = "http"
	}
	host := ep.Host
	if ep.Protocol != "ssh" && ep.Port != 0 {
		host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	return scheme + "://" + host + "/" + strings.TrimSuffix(strings.Trim(ep.Path, "/"), ".git")
}
