package oauth

import (
	"html/template"
	"net/http"

	"ragd/internal/authn"
)

// scopeText says what each scope allows, on the consent page.
var scopeText = map[string]string{
	authn.ScopeRead:     "read: search, ask and read documents, jobs and statistics",
	authn.ScopeWrite:    "write: add, change and delete documents",
	authn.ScopeOperator: "operator: what spans every namespace (only if your grants make you an operator)",
}

var consentTmpl = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Allow {{.Client}}? · ragd</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto">
<h1>Allow {{.Client}} to use ragd?</h1>
<p>Signed in as <strong>{{.Person}}</strong>.</p>
<p><strong>{{.Client}}</strong> will be sent back to <strong>{{.Host}}</strong> and may, on your behalf:</p>
<ul>{{range .Scopes}}<li>{{.}}</li>{{end}}</ul>
<p>in <strong>{{.Namespaces}}</strong>.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.Request}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button name="decision" value="allow">Allow</button>
<button name="decision" value="deny">Deny</button>
</form></body></html>
`))

var errorTmpl = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in stopped · ragd</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto">
<h1>Sign-in stopped</h1><p>{{.}}</p></body></html>
`))

// consentPage shows what a is asked to allow.
func (s *Server) consentPage(w http.ResponseWriter, a ask, id, csrf string) {
	scopes := make([]string, len(a.Scopes))
	for i, sc := range a.Scopes {
		scopes[i] = scopeText[sc]
	}
	name := a.ClientName
	if name == "" {
		name = a.ClientID
	}
	pageHeaders(w)
	w.WriteHeader(http.StatusOK)
	_ = consentTmpl.Execute(w, map[string]any{"Client": name, "Person": a.Person.Name, "Host": redirectHost(a.RedirectURI),
		"Scopes": scopes, "Namespaces": namespacesShown(a.Person), "Action": ConsentPath, "Request": id, "CSRF": csrf})
}

// errorPage answers status with a page saying message; it never redirects.
func (s *Server) errorPage(w http.ResponseWriter, _ *http.Request, status int, message string) {
	if message == "" {
		message = "The request was refused."
	}
	pageHeaders(w)
	w.WriteHeader(status)
	_ = errorTmpl.Execute(w, message)
}

// pageHeaders: ragd's pages are not cached, framed or scripted.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" with the consent form, which the Origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
}
