package authn

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func fetchMetadata(t *testing.T, a *Authenticator, path string) map[string]any {
	t.Helper()
	w := httptest.NewRecorder()
	a.MetadataHandler().ServeHTTP(w, httptest.NewRequest("GET", "http://rag.example.com"+path, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("code %d body %s", w.Code, w.Body)
	}
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestMetadataJWT(t *testing.T) {
	a := mustNew(t, Config{
		Mode: ModeJWT, JWKSURL: "https://idp.example.com/jwks", Issuer: "https://idp.example.com",
		Audience: "ragd", Scopes: []string{"ragd.read"}, ResourceURL: "https://rag.example.com/",
	})
	doc := fetchMetadata(t, a, MetadataPath)
	want := map[string]any{
		"resource":                 "https://rag.example.com",
		"authorization_servers":    []any{"https://idp.example.com"},
		"bearer_methods_supported": []any{"header"},
		"scopes_supported":         []any{"ragd.read"},
	}
	if got, _ := json.Marshal(doc); string(got) != mustJSON(t, want) {
		t.Errorf("metadata = %s, want %s", got, mustJSON(t, want))
	}
	// Path-suffixed form (RFC 9728 §3.1) names the endpoint as resource.
	if r := fetchMetadata(t, a, MetadataPath+"/mcp")["resource"]; r != "https://rag.example.com/mcp" {
		t.Errorf("resource for /mcp = %v", r)
	}
}

func TestMetadataDefaults(t *testing.T) {
	// Explicit authorization servers win; no ResourceURL derives from Host.
	a := mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{{Name: "a", Token: "t"}}, AuthorizationServers: []string{"https://as.example.com"}})
	doc := fetchMetadata(t, a, MetadataPath)
	var meta oauthex.ProtectedResourceMetadata
	b, _ := json.Marshal(doc)
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Resource != "http://rag.example.com" || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != "https://as.example.com" {
		t.Errorf("metadata = %+v", meta)
	}
	// The challenge points at the same derived location.
	h, _ := protect(a)
	w := request(h, "GET", "/v1/stats", nil)
	if got, want := w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="http://rag.example.com`+MetadataPath+`"`; got != want {
		t.Errorf("WWW-Authenticate = %q, want %q", got, want)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
