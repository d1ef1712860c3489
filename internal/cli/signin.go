package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A signin is what ragd login keeps of one server: the client it
// registered there, the endpoints, and the tokens. It lives in
// <user config dir>/ragd/signins.json (0600, its directory 0700), one per
// server URL.
type signin struct {
	Issuer       string    `json:"issuer"`
	ClientID     string    `json:"client_id"`
	TokenURL     string    `json:"token_endpoint"`
	RevokeURL    string    `json:"revocation_endpoint,omitempty"`
	Resource     string    `json:"resource"`
	Scope        string    `json:"scope,omitempty"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry"`
}

// signinFile is where the sign-ins are kept.
func signinFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config directory to keep the sign-in in: %w", err)
	}
	return filepath.Join(dir, "ragd", "signins.json"), nil
}

// loadSignins reads every kept sign-in; none when the file is missing.
func loadSignins(path string) (map[string]signin, error) {
	all := map[string]signin{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return all, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &all)
	}
	if err != nil {
		return nil, fmt.Errorf("the sign-ins in %s are unreadable (delete the file and run ragd login): %w", path, err)
	}
	return all, nil
}

// saveSignins replaces the file at once (a temporary file renamed), 0600.
func saveSignins(path string, all map[string]signin) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".signins-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// serverKey is how a server's sign-in is found: its URL without a
// trailing slash.
func serverKey(server string) string { return strings.TrimRight(server, "/") }

// refreshMargin: a token this close to its expiry is renewed first.
const refreshMargin = 30 * time.Second

// signedIn is the token source of a server's kept sign-in: the access
// token, renewed with the refresh token (under the file's lock, so two
// commands do not both use the same one-time refresh token) when it is
// about to expire.
type signedIn struct {
	path, server string
	http         *http.Client
}

func (s signedIn) token(ctx context.Context) (string, error) {
	var tok string
	err := withFileLock(s.path, func() error {
		all, err := loadSignins(s.path)
		if err != nil {
			return err
		}
		si, ok := all[s.server]
		if !ok {
			return errNotSignedIn(s.server)
		}
		if time.Until(si.Expiry) > refreshMargin {
			tok = si.AccessToken
			return nil
		}
		if si.RefreshToken == "" {
			return fmt.Errorf("your sign-in to %s has expired: run ragd login", s.server)
		}
		resp, err := tokenRequest(ctx, s.http, si.TokenURL, url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {si.RefreshToken}, "client_id": {si.ClientID}, "resource": {si.Resource}})
		if err != nil {
			return fmt.Errorf("your sign-in to %s could not be renewed (%w): run ragd login", s.server, err)
		}
		resp.apply(&si)
		all[s.server] = si
		tok = si.AccessToken
		return saveSignins(s.path, all)
	})
	return tok, err
}

func errNotSignedIn(server string) error {
	return fmt.Errorf("not signed in to %s: run ragd login, or give a key with --token", server)
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// apply keeps the answer's tokens in si; a refresh token not rotated is
// kept.
func (r tokenResponse) apply(si *signin) {
	si.AccessToken = r.AccessToken
	if r.RefreshToken != "" {
		si.RefreshToken = r.RefreshToken
	}
	if r.Scope != "" {
		si.Scope = r.Scope
	}
	si.Expiry = time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)
}

// tokenRequest posts form to a token endpoint: the answer, or its OAuth
// error (RFC 6749 §5.2) as the error's text.
func tokenRequest(ctx context.Context, hc *http.Client, endpoint string, form url.Values) (tokenResponse, error) {
	var out tokenResponse
	err := postForm(ctx, hc, endpoint, form, &out)
	if err == nil && (out.AccessToken == "" || !strings.EqualFold(out.TokenType, "bearer")) {
		err = errors.New("the token endpoint answered no bearer token")
	}
	return out, err
}

// postForm posts form and decodes a 2xx JSON answer into out (unless
// nil); another status is an error naming the OAuth error it carries.
func postForm(ctx context.Context, hc *http.Client, endpoint string, form url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	return doJSON(hc, req, out)
}

// doJSON sends req and decodes its JSON answer (at most 1 MiB).
func doJSON(hc *http.Client, req *http.Request, out any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var oe struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(body, &oe) == nil && oe.Error != "" {
			return fmt.Errorf("%s: %s (%s)", req.URL.Path, oe.Error, oe.Description)
		}
		return fmt.Errorf("%s answered %s", req.URL.Path, resp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: the answer is not the JSON expected: %w", req.URL.Path, err)
	}
	return nil
}
