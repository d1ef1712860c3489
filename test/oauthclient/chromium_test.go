package oauthclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/testenv"
)

// chromium starts headless chromium for t; its tabs share the returned
// context, which ends with the test.
func chromium(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(testenv.Chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancelTimeout := context.WithTimeout(context.Background(), 2*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// TestChromiumConsent: the person's browser is headless Chromium. The
// go-sdk client opens the authorization URL in it; Chromium goes through
// the GitHub stand-in to ragd's consent page, which names the app, the
// redirect host, the namespace and the scopes; clicking
// <button name="decision" value="allow"> posts the form (Chromium sends
// the Origin and the CSRF cookie itself) and Chromium lands on the app's
// loopback redirect with the code; the client then calls
// core_retrieve_text with its token.
func TestChromiumConsent(t *testing.T) {
	s, _ := signin.StartGitHub(t)
	ctx := chromium(t)
	landed := make(chan *auth.AuthorizationResult, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		landed <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		_, _ = w.Write([]byte("<!doctype html><title>signed in</title><p id=done>You may close this window.</p>"))
	}))
	defer app.Close()
	redirectURI := app.URL + "/callback"
	var page string
	fetch := func(fctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if err := chromedp.Do(ctx, chromedp.Navigate(args.URL), chromedp.WaitVisible(chromedp.CSS(`button[name="decision"][value="allow"]`))); err != nil {
			return nil, err
		}
		var err error
		if page, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body"))); err != nil {
			return nil, err
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[name="decision"][value="allow"]`)), chromedp.WaitVisible(chromedp.CSS("#done"))); err != nil {
			return nil, err
		}
		select {
		case r := <-landed:
			return r, nil
		case <-fctx.Done():
			return nil, fctx.Err()
		}
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Chromium test agent", RedirectURIs: []string{redirectURI}}},
		RedirectURL: redirectURI, AuthorizationCodeFetcher: fetch,
	})
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "chromium test agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", OAuthHandler: handler}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	for _, want := range []string{"Chromium test agent", strings.TrimPrefix(app.URL, "http://"), "docs", "octocat", "read:", "write:"} {
		if !strings.Contains(page, want) {
			t.Errorf("the consent page Chromium showed does not say %q:\n%s", want, page)
		}
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "harbour lighthouse lamp controller", "kb_name": "docs"}})
	if err != nil || res.IsError {
		t.Fatalf("core_retrieve_text: %v %+v", err, res)
	}
}
