package openapi

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	swaggerfiles "github.com/swaggo/files/v2"
)

//go:embed assets/swagger-ui.html assets/swagger-initializer.js
var assets embed.FS

var swaggerPage = template.Must(template.ParseFS(assets, "assets/swagger-ui.html"))

// SwaggerUI serves Swagger UI at prefix (e.g. "/docs") from the assets
// embedded in github.com/swaggo/files/v2, configured to load specURL (e.g.
// "/openapi.json"). Nothing comes from a CDN, so it works without internet.
// It expects the full request path: mount it at prefix and prefix+"/*".
// GET prefix redirects to prefix+"/", whose page refers to its assets by
// relative paths so a reverse proxy may mount it under any path.
func SwaggerUI(prefix, specURL string) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	var page bytes.Buffer
	if err := swaggerPage.Execute(&page, struct{ SpecURL string }{specURL}); err != nil {
		panic(err) // the template is embedded and its data a string: cannot fail
	}
	initializer, err := assets.ReadFile("assets/swagger-initializer.js")
	if err != nil {
		panic(err)
	}
	// Our page and initializer replace the bundle's own, which load the
	// petstore example from the internet.
	own := map[string][]byte{
		"":                       page.Bytes(),
		"index.html":             page.Bytes(),
		"swagger-initializer.js": initializer,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == prefix {
			// Relative, so it holds behind a proxy that rewrites the path;
			// http.Redirect would make it absolute.
			w.Header().Set("Location", path.Base(prefix)+"/")
			w.WriteHeader(http.StatusFound)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, prefix+"/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if body, ok := own[name]; ok {
			serve(w, r, name, body, "no-cache")
			return
		}
		if !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		body, err := fs.ReadFile(swaggerfiles.FS, name)
		if err != nil {
			http.NotFound(w, r) // a directory or no such file
			return
		}
		serve(w, r, name, body, "public, max-age=86400")
	})
}

// serve writes an embedded file; http.ServeContent adds range requests.
func serve(w http.ResponseWriter, r *http.Request, name string, body []byte, cacheControl string) {
	w.Header().Set("Content-Type", contentType(name))
	w.Header().Set("Cache-Control", cacheControl)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// contentType fixes the types of the files served: the system's MIME
// tables differ between machines, and a browser refuses a script whose
// type is wrong when nosniff is set.
func contentType(name string) string {
	switch path.Ext(name) {
	case "", ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".map":
		return "application/json"
	case ".png":
		return "image/png"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
