package ingest

import (
	"net/url"
	"testing"
)

func TestCanonicalURL(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Example.COM:443/Docs/A?q=1&b=2#frag": "https://example.com/Docs/A?q=1&b=2",
		"http://example.com:80":                       "http://example.com/",
		"http://example.com:8080/x":                   "http://example.com:8080/x",
		"https://user:pw@example.com/x":               "https://example.com/x",
		"http://[2001:DB8::1]:80/p":                   "http://[2001:db8::1]/p",
		"http://[2001:db8::1]:8443/p":                 "http://[2001:db8::1]:8443/p",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := CanonicalURL(u); got != want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", in, got, want)
		}
	}
}
