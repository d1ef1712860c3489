package openapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"ragd/internal/server/openapi"
)

func get(t *testing.T, h http.Handler, method, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result()
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var assetRefs = regexp.MustCompile(`(?:src|href)="([^"]*)"`)

func TestSwaggerUIPage(t *testing.T) {
	t.Parallel()
	h := openapi.SwaggerUI("/docs", "/openapi.json")
	resp := get(t, h, http.MethodGet, "/docs/")
	page := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs/: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(page, `data-spec-url="/openapi.json"`) {
		t.Errorf("page does not point the bundle at the spec:\n%s", page)
	}
	refs := assetRefs.FindAllStringSubmatch(page, -1)
	if len(refs) < 4 {
		t.Fatalf("page refers to %d assets, want the bundle, preset, initializer and css:\n%s", len(refs), page)
	}
	for _, m := range refs {
		ref := m[1]
		if strings.Contains(ref, "://") || strings.HasPrefix(ref, "//") {
			t.Errorf("page loads %q from outside the server", ref)
			continue
		}
		if ref == "/openapi.json" {
			continue
		}
		// Each local asset is served, with the type a browser needs.
		asset := get(t, h, http.MethodGet, "/docs/"+ref)
		if asset.StatusCode != http.StatusOK {
			t.Errorf("asset %s: %d", ref, asset.StatusCode)
		}
	}
	if got := get(t, h, http.MethodGet, "/docs/index.html"); readBody(t, got) != page {
		t.Error("/docs/index.html is not the generated page")
	}
}

func TestSwaggerUIAssets(t *testing.T) {
	t.Parallel()
	h := openapi.SwaggerUI("/docs/", "/openapi.json") // a trailing slash is tolerated
	for name, wantType := range map[string]string{
		"swagger-ui-bundle.js":            "text/javascript",
		"swagger-ui-standalone-preset.js": "text/javascript",
		"swagger-initializer.js":          "text/javascript",
		"swagger-ui.css":                  "text/css",
		"favicon-32x32.png":               "image/png",
	} {
		resp := get(t, h, http.MethodGet, "/docs/"+name)
		body := readBody(t, resp)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), wantType) || len(body) == 0 {
			t.Errorf("%s: %d %q, %d bytes", name, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	bundle := readBody(t, get(t, h, http.MethodGet, "/docs/swagger-ui-bundle.js"))
	if len(bundle) < 100_000 || !strings.Contains(bundle, "SwaggerUIBundle") {
		t.Errorf("bundle is %d bytes and does not define SwaggerUIBundle", len(bundle))
	}
	// Our initializer replaces the bundle's, which loads the petstore from
	// the internet, and turns off the online validator badge.
	init := readBody(t, get(t, h, http.MethodGet, "/docs/swagger-initializer.js"))
	if strings.Contains(init, "petstore") || !strings.Contains(init, "validatorUrl: null") || !strings.Contains(init, "data-spec-url") {
		t.Errorf("initializer:\n%s", init)
	}
}

func TestSwaggerUIRouting(t *testing.T) {
	t.Parallel()
	h := openapi.SwaggerUI("/docs", "/openapi.json")
	resp := get(t, h, http.MethodGet, "/docs")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "docs/" {
		t.Errorf("GET /docs: %d Location %q, want a relative redirect to docs/", resp.StatusCode, resp.Header.Get("Location"))
	}
	for path, want := range map[string]int{
		"/docs/nothing.js":       http.StatusNotFound,
		"/docs/../go.mod":        http.StatusNotFound,
		"/docs//etc/passwd":      http.StatusNotFound,
		"/elsewhere/index.html":  http.StatusNotFound,
		"/docs/swagger-ui.css":   http.StatusOK,
		"/docs/swagger-ui.css/x": http.StatusNotFound,
	} {
		if got := get(t, h, http.MethodGet, path).StatusCode; got != want {
			t.Errorf("GET %s: %d, want %d", path, got, want)
		}
	}
	head := get(t, h, http.MethodHead, "/docs/swagger-ui-bundle.js")
	if head.StatusCode != http.StatusOK || readBody(t, head) != "" {
		t.Errorf("HEAD: %d", head.StatusCode)
	}
	if got := get(t, h, http.MethodPost, "/docs/").StatusCode; got != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", got)
	}
}

// The spec URL is escaped into the page, never injected.
func TestSwaggerUIEscapesSpecURL(t *testing.T) {
	t.Parallel()
	h := openapi.SwaggerUI("/docs", `/spec.json"><script>alert(1)</script>`)
	page := readBody(t, get(t, h, http.MethodGet, "/docs/"))
	if strings.Contains(page, "<script>alert") {
		t.Fatalf("spec URL injected into the page:\n%s", page)
	}
}
