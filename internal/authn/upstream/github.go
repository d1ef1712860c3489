package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"ragd"
)

// githubScopes are what ragd asks of a GitHub user: the profile, and the
// orgs and teams (read:org, which /user/teams and private org membership
// need).
var githubScopes = []string{"read:user", "user:email", "read:org"}

// The bounds of a GitHub listing: pages of maxPerPage, at most maxPages of
// them (1000 orgs or teams); a body larger than maxBody is refused.
const (
	maxPerPage = 100
	maxPages   = 10
	maxBody    = 4 << 20
)

// github signs in with a GitHub (or GitHub Enterprise) OAuth app.
type github struct {
	conf   oauth2.Config
	api    *url.URL
	client *http.Client
}

func newGitHub(cfg Config) (*github, error) {
	if cfg.GitHubURL == "" || cfg.GitHubAPIURL == "" {
		return nil, errors.New("upstream: github needs GitHubURL and GitHubAPIURL")
	}
	api, err := url.Parse(strings.TrimSuffix(cfg.GitHubAPIURL, "/"))
	if err != nil || api.Host == "" {
		return nil, fmt.Errorf("upstream: github_api_url %q is not an absolute URL", cfg.GitHubAPIURL)
	}
	web := strings.TrimSuffix(cfg.GitHubURL, "/")
	return &github{
		conf: oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Scopes: githubScopes,
			Endpoint: oauth2.Endpoint{
				AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token",
				// GitHub documents the client secret as a form parameter.
				AuthStyle: oauth2.AuthStyleInParams,
			},
		},
		api: api, client: cfg.HTTPClient,
	}, nil
}

// AuthCodeURL implements Provider.
func (g *github) AuthCodeURL(state, codeChallenge, redirectURI string) string {
	conf := g.conf
	conf.RedirectURL = redirectURI
	return conf.AuthCodeURL(state, append(pkce(codeChallenge), oauth2.SetAuthURLParam("allow_signup", "false"))...)
}

// Exchange implements Provider.
func (g *github) Exchange(ctx context.Context, code, verifier, redirectURI string) (Identity, []byte, error) {
	conf := g.conf
	conf.RedirectURL = redirectURI
	tok, err := conf.Exchange(withClient(ctx, g.client), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, nil, tokenError(ProviderGitHub, err)
	}
	id, err := g.identity(ctx, tok)
	if err != nil {
		return Identity{}, nil, err
	}
	return id, newCredential(id.Subject, tok).encode(), nil
}

// Recheck implements Provider: the stored token (refreshed first when it
// expires and GitHub gave a refresh token, as for expiring user tokens)
// reads the user, orgs and teams again.
func (g *github) Recheck(ctx context.Context, stored []byte) (Identity, []byte, error) {
	c, err := decodeCredential(stored)
	if err != nil {
		return Identity{}, nil, err
	}
	tok, err := g.conf.TokenSource(withClient(ctx, g.client), c.token()).Token()
	if err != nil {
		return Identity{}, nil, tokenError(ProviderGitHub, err)
	}
	id, err := g.identity(ctx, tok)
	if err != nil {
		return Identity{}, nil, err
	}
	if err := sameSubject(c, id); err != nil {
		return Identity{}, nil, err
	}
	return id, newCredential(id.Subject, tok).encode(), nil
}

// ghUser, ghOrg and ghTeam are the fields ragd reads of GitHub's answers.
type ghUser struct {
	ID    int64   `json:"id"`
	Login string  `json:"login"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
}

type ghOrg struct {
	Login string `json:"login"`
}

type ghTeam struct {
	Slug         string `json:"slug"`
	Organization ghOrg  `json:"organization"`
}

// identity reads /user, /user/orgs and /user/teams with tok.
func (g *github) identity(ctx context.Context, tok *oauth2.Token) (Identity, error) {
	var u ghUser
	if _, err := g.get(ctx, tok, g.endpoint("/user"), &u); err != nil {
		return Identity{}, err
	}
	if u.ID == 0 || u.Login == "" {
		return Identity{}, ragd.Unavailable(ProviderGitHub, errors.New("/user answered without id or login"))
	}
	id := Identity{Provider: ProviderGitHub, Subject: strconv.FormatInt(u.ID, 10), Login: u.Login, Name: deref(u.Name), Email: deref(u.Email)}
	orgs, err := list[ghOrg](ctx, g, tok, "/user/orgs")
	if err != nil {
		return Identity{}, err
	}
	for _, o := range orgs {
		id.Orgs = append(id.Orgs, o.Login)
	}
	teams, err := list[ghTeam](ctx, g, tok, "/user/teams")
	if err != nil {
		return Identity{}, err
	}
	for _, t := range teams {
		id.Teams = append(id.Teams, t.Organization.Login+"/"+t.Slug)
	}
	return id, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// endpoint is the API URL of path.
func (g *github) endpoint(path string) string {
	u := *g.api
	u.Path += path
	return u.String()
}

// list reads every page of a GitHub listing, following the Link header's
// next (on the API's own host only, so the token goes nowhere else), up
// to maxPages.
func list[T any](ctx context.Context, g *github, tok *oauth2.Token, path string) ([]T, error) {
	next := g.endpoint(path) + "?per_page=" + strconv.Itoa(maxPerPage)
	var all []T
	for page := 0; next != ""; page++ {
		if page == maxPages {
			return nil, ragd.Forbidden("GitHub lists more than %d pages of %s for this user; ragd reads at most %d entries", maxPages, path, maxPages*maxPerPage)
		}
		var items []T
		link, err := g.get(ctx, tok, next, &items)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next, err = g.nextPage(link); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// nextPage is the rel="next" URL of a Link header, or "".
func (g *github) nextPage(link string) (string, error) {
	for part := range strings.SplitSeq(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err != nil || u.Scheme != g.api.Scheme || u.Host != g.api.Host {
			return "", ragd.Unavailable(ProviderGitHub, fmt.Errorf("a Link header points off the API host %s", g.api.Host))
		}
		return u.String(), nil
	}
	return "", nil
}

// get calls the API with tok and decodes the JSON answer into v,
// returning its Link header.
func (g *github) get(ctx context.Context, tok *oauth2.Token, target string, v any) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", ragd.Unavailable(ProviderGitHub, err)
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	resp, err := g.client.Do(req)
	if err != nil {
		return "", ragd.Unavailable(ProviderGitHub, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return "", ragd.Forbidden("GitHub no longer accepts ragd's token for this person (revoked or expired); sign in again")
	case resp.StatusCode == http.StatusForbidden:
		return "", ragd.Forbidden("GitHub refused to list %s for this person (%s): the OAuth app may need the organization's approval", req.URL.Path, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return "", ragd.Unavailable(ProviderGitHub, fmt.Errorf("GET %s answered %s", req.URL.Path, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("GET %s answered more than %d bytes", req.URL.Path, maxBody)
	}
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		return "", ragd.Unavailable(ProviderGitHub, err)
	}
	return resp.Header.Get("Link"), nil
}
