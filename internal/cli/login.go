package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// loginTimeout bounds the wait for the person to sign in in the browser.
const loginTimeout = 5 * time.Minute

// callbackPath is the loopback redirect's path.
const callbackPath = "/callback"

// runLogin: ragd login, signing in through the browser at a server in
// auth.mode oauth (RFC 8252 for native apps: a loopback redirect on an
// ephemeral port, PKCE S256, the client registered dynamically), and
// keeping the tokens for the other commands.
func runLogin(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	scope := fs.String("scope", "", "scopes to ask for, space- or comma-separated (default: the server's defaults)")
	noBrowser := fs.Bool("no-browser", false, "print the sign-in address instead of opening a browser")
	if _, err := s.parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := s.bareClient()
	if err != nil {
		return err
	}
	path, err := signinFile()
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	as, err := discover(ctx, hc, c.Server())
	if err != nil {
		return err
	}
	si, err := signIn(ctx, s, hc, as, strings.Join(strings.FieldsFunc(*scope, func(r rune) bool { return r == ',' || r == ' ' }), " "), *noBrowser)
	if err != nil {
		return err
	}
	var replaced signin
	err = withFileLock(path, func() error {
		all, err := loadSignins(path)
		if err != nil {
			return err
		}
		replaced = all[serverKey(c.Server())]
		all[serverKey(c.Server())] = si
		return saveSignins(path, all)
	})
	if err != nil {
		return err
	}
	if replaced.RefreshToken != "" {
		// The sign-in this one replaces is revoked, not left alive unkept.
		if err := revoke(ctx, hc, replaced); err != nil {
			s.warnf("the previous sign-in to %s could not be revoked: %v", c.Server(), err)
		}
	}
	if s.globals.json {
		return s.emit(map[string]any{"server": c.Server(), "scope": si.Scope, "expires_at": si.Expiry, "file": path})
	}
	s.printf("signed in to %s (scopes: %s); the token is kept in %s\n", c.Server(), si.Scope, path)
	return nil
}

// runLogout: ragd logout, revoking the kept tokens at the server (RFC
// 7009) and forgetting them.
func runLogout(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	if _, err := s.parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := s.bareClient()
	if err != nil {
		return err
	}
	path, err := signinFile()
	if err != nil {
		return err
	}
	var revokeErr error
	err = withFileLock(path, func() error {
		all, err := loadSignins(path)
		if err != nil {
			return err
		}
		si, ok := all[serverKey(c.Server())]
		if !ok {
			return errNotSignedIn(c.Server())
		}
		revokeErr = revoke(ctx, &http.Client{Timeout: 30 * time.Second}, si)
		delete(all, serverKey(c.Server()))
		return saveSignins(path, all)
	})
	if err != nil {
		return err
	}
	if revokeErr != nil {
		return fmt.Errorf("signed out here, but %s did not revoke the token: %w", c.Server(), revokeErr)
	}
	if s.globals.json {
		return s.emit(map[string]any{"server": c.Server(), "revoked": true})
	}
	s.printf("signed out of %s: the token is revoked and forgotten\n", c.Server())
	return nil
}

// revoke revokes the refresh token (its whole family) and the access token.
func revoke(ctx context.Context, hc *http.Client, si signin) error {
	if si.RevokeURL == "" {
		return errors.New("it has no revocation endpoint")
	}
	for _, tok := range []string{si.RefreshToken, si.AccessToken} {
		if tok == "" {
			continue
		}
		if err := postForm(ctx, hc, si.RevokeURL, url.Values{"token": {tok}, "client_id": {si.ClientID}}, nil); err != nil {
			return err
		}
	}
	return nil
}

// authServer is what ragd login reads of the server's metadata.
type authServer struct {
	Resource           string   // the protected resource (RFC 9728)
	Issuer             string   `json:"issuer"`
	AuthorizationURL   string   `json:"authorization_endpoint"`
	TokenURL           string   `json:"token_endpoint"`
	RegistrationURL    string   `json:"registration_endpoint"`
	RevocationURL      string   `json:"revocation_endpoint"`
	ChallengeMethods   []string `json:"code_challenge_methods_supported"`
	IssInAuthorization bool     `json:"authorization_response_iss_parameter_supported"`
}

// discover reads the server's protected-resource metadata (RFC 9728),
// then its authorization server's (RFC 8414), whose issuer must be the
// one named.
func discover(ctx context.Context, hc *http.Client, server string) (authServer, error) {
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := getJSON(ctx, hc, server+"/.well-known/oauth-protected-resource", &prm); err != nil || len(prm.AuthorizationServers) == 0 {
		return authServer{}, fmt.Errorf("%s does not sign people in (auth.mode is not oauth?): give a key with --token instead (%v)", server, err)
	}
	issuer := strings.TrimRight(prm.AuthorizationServers[0], "/")
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return authServer{}, fmt.Errorf("%s names an authorization server that is not an http(s) URL: %q", server, issuer)
	}
	u.Path = "/.well-known/oauth-authorization-server" + u.Path
	var as authServer
	if err := getJSON(ctx, hc, u.String(), &as); err != nil {
		return authServer{}, fmt.Errorf("the authorization server %s: %w", issuer, err)
	}
	switch {
	case strings.TrimRight(as.Issuer, "/") != issuer:
		return authServer{}, fmt.Errorf("the authorization server's metadata names issuer %q, not %q", as.Issuer, issuer)
	case !slices.Contains(as.ChallengeMethods, "S256"):
		return authServer{}, fmt.Errorf("the authorization server %s does not support PKCE S256", issuer)
	case as.AuthorizationURL == "" || as.TokenURL == "" || as.RegistrationURL == "":
		return authServer{}, fmt.Errorf("the authorization server %s lacks an authorization, token or registration endpoint", issuer)
	}
	as.Resource = prm.Resource
	return as, nil
}

func getJSON(ctx context.Context, hc *http.Client, target string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return doJSON(hc, req, out)
}

// loopbackResult is what the browser brought back to the loopback redirect.
type loopbackResult struct {
	code string
	err  error
}

// signIn runs the authorization code flow: a loopback listener, the
// client registered for its redirect, the browser sent to sign in, the
// code exchanged with the PKCE verifier.
func signIn(ctx context.Context, s *session, hc *http.Client, as authServer, scope string, noBrowser bool) (signin, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return signin{}, fmt.Errorf("cannot listen on a loopback port for the sign-in: %w", err)
	}
	defer l.Close()
	redirect := "http://" + l.Addr().String() + callbackPath
	clientID, err := register(ctx, hc, as, redirect)
	if err != nil {
		return signin{}, err
	}
	verifier, state := oauth2.GenerateVerifier(), randomState()
	done := make(chan loopbackResult, 1)
	srv := &http.Server{Handler: callbackHandler(as, state, done), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l) //nolint:errcheck // ends with Shutdown below
	defer func() {
		// Shutdown, not Close: the browser still gets its page.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	conf := oauth2.Config{ClientID: clientID, RedirectURL: redirect, Endpoint: oauth2.Endpoint{AuthURL: as.AuthorizationURL, TokenURL: as.TokenURL}}
	if scope != "" {
		conf.Scopes = strings.Fields(scope)
	}
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", as.Resource))
	fmt.Fprintf(s.env.Stderr, "sign in at this address (waiting up to %s):\n  %s\n", loginTimeout, authURL)
	if !noBrowser {
		if err := s.env.openBrowser(authURL); err != nil {
			fmt.Fprintf(s.env.Stderr, "(no browser opened: %v; open the address yourself)\n", err)
		}
	}
	var res loopbackResult
	select {
	case res = <-done:
	case <-ctx.Done():
		return signin{}, ctx.Err()
	case <-time.After(loginTimeout):
		return signin{}, fmt.Errorf("no sign-in within %s", loginTimeout)
	}
	if res.err != nil {
		return signin{}, res.err
	}
	tok, err := tokenRequest(ctx, hc, as.TokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {res.code},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}, "resource": {as.Resource}})
	if err != nil {
		return signin{}, fmt.Errorf("the sign-in's code was refused: %w", err)
	}
	si := signin{Issuer: as.Issuer, ClientID: clientID, TokenURL: as.TokenURL, RevokeURL: as.RevocationURL, Resource: as.Resource}
	tok.apply(&si)
	return si, nil
}

// register registers ragd login as a public client with its loopback
// redirect (RFC 7591).
func register(ctx context.Context, hc *http.Client, as authServer, redirect string) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"client_name": "ragd CLI", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationURL, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := doJSON(hc, req, &reg); err != nil || reg.ClientID == "" {
		return "", fmt.Errorf("could not register ragd login at %s: %v", as.Issuer, err)
	}
	return reg.ClientID, nil
}

// callbackHandler takes the browser's return: the state must be this
// sign-in's and the iss (RFC 9207) the server's.
func callbackHandler(as authServer, state string, done chan<- loopbackResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var res loopbackResult
		switch {
		case r.URL.Path != callbackPath || q.Get("state") != state:
			http.Error(w, "not this sign-in's return", http.StatusBadRequest)
			return
		case q.Get("iss") != "" && strings.TrimRight(q.Get("iss"), "/") != strings.TrimRight(as.Issuer, "/"),
			q.Get("iss") == "" && as.IssInAuthorization:
			res.err = fmt.Errorf("the sign-in came back from another issuer (%q) than %s", q.Get("iss"), as.Issuer)
		case q.Get("error") != "":
			res.err = fmt.Errorf("the sign-in was refused: %s %s", q.Get("error"), q.Get("error_description"))
		default:
			res.code = q.Get("code")
		}
		msg := "Signed in: you may close this tab and return to the terminal."
		if res.err != nil {
			msg = "Not signed in: " + res.err.Error()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>ragd login</title><p>%s</p>\n", html.EscapeString(msg))
		select {
		case done <- res:
		default: // a second return: the first counts
		}
	})
}

func randomState() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// openBrowser opens target in the person's browser: env.OpenBrowser when
// set, else the system's opener.
func (e Env) openBrowser(target string) error {
	if e.OpenBrowser != nil {
		return e.OpenBrowser(target)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", target)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	default:
		cmd = exec.Command("xdg-open", target)
	}
	return cmd.Start()
}
