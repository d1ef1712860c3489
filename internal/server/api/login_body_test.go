package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"ragd/internal/authn"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// A login body over 64 KiB is a 413 and one that stalls past
// http.body_timeout a 408, as at every other route: both were a 422 asking
// for a token.
func TestLoginBodyLimits(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-admin-0123456789"}}
	cfg.HTTP.BodyTimeout = 300 * time.Millisecond
	s := stack.Start(t, cfg, true)
	big := `{"token":"` + strings.Repeat("t", 64<<10) + `"}`
	req, _ := http.NewRequest(http.MethodPost, s.URL+authn.LoginPath, bytes.NewReader([]byte(big)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a login body over 64 KiB: %d, want 413", resp.StatusCode)
	}
	conn := sendPartial(t, s, authn.LoginPath, "application/json", 100, `{"token":"`)
	status, body, err := readAnswer(t, conn, 5*time.Second)
	if err != nil || status != http.StatusRequestTimeout || !strings.Contains(body, "http.body_timeout") {
		t.Errorf("a stalled login body: %d %s %v; want 408 naming http.body_timeout", status, body, err)
	}
}
