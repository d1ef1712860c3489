package openapi

import "net/http"

// ReDoc would serve ReDoc at prefix, loading specURL, but returns nil: no
// Go module on the module proxy this project can reach embeds a ReDoc
// standalone bundle (github.com/mvrilo/go-redoc and its forks are refused
// there), and loading it from a CDN would fail on a server without
// internet. Callers mount it only when it is not nil.
func ReDoc(prefix, specURL string) http.Handler {
	return nil
}
