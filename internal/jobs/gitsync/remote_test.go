package gitsync

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"ragd"
)

// An ssh source's deploy key comes from the environment variable its
// ssh_key names, never from the request; an unset variable, a value that
// is not env:VAR or a variable holding no key is refused naming the field.
func TestDeployKeyFromTheEnvironment(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_TEST_DEPLOY_KEY", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	t.Setenv("RAGD_TEST_NOT_A_KEY", "hello")
	e := Endpoint{URL: "deploy@git.example.org:acme/handbook.git", Protocol: "ssh"}
	am, err := auth(e, "env:RAGD_TEST_DEPLOY_KEY")
	if keys, ok := am.(*gitssh.PublicKeys); err != nil || !ok || keys.User != "deploy" {
		t.Fatalf("deploy key: %T %v", am, err)
	}
	for _, c := range []struct{ key, says string }{
		{"-----BEGIN OPENSSH PRIVATE KEY-----", "env:VAR"},
		{"env:RAGD_TEST_UNSET_DEPLOY_KEY", "empty or unset"},
		{"env:RAGD_TEST_NOT_A_KEY", "not a usable private key"},
	} {
		_, err := auth(e, c.key)
		if ragd.KindOf(err) != ragd.KindInvalid || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "hello") {
			t.Errorf("ssh_key %.20q: %v", c.key, err)
		}
	}
	if _, err := auth(Endpoint{URL: "https://example.org/r.git", Protocol: "https"}, "env:RAGD_TEST_DEPLOY_KEY"); ragd.KindOf(err) != ragd.KindInvalid {
		t.Errorf("ssh_key on an https URL: %v", err)
	}
}

// The citation follows the template from https and ssh URLs, and there is
// none for git:// and file://.
func TestWebURL(t *testing.T) {
	const tpl = "{repo}/blob/{commit}/{path}"
	for _, c := range []struct{ url, want string }{
		{"https://github.com/acme/handbook.git", "https://github.com/acme/handbook/blob/c0ffee/docs/a.md"},
		{"git@github.com:acme/handbook.git", "https://github.com/acme/handbook/blob/c0ffee/docs/a.md"},
		{"http://127.0.0.1:8080/handbook", "http://127.0.0.1:8080/handbook/blob/c0ffee/docs/a.md"},
		{"git://example.org/handbook.git", ""},
		{"file:///srv/repos/handbook", ""},
	} {
		if got := WebURL(tpl, c.url, "c0ffee", "docs/a.md"); got != c.want {
			t.Errorf("%s: %q, want %q", c.url, got, c.want)
		}
	}
}
