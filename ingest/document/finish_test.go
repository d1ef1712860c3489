package document

import "testing"

func TestFallbackTitle(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/report.pdf":                   "report.pdf",
		"notes.txt":                         "notes.txt",
		"https://example.com/docs/My%20Doc": "My Doc",
		"https://example.com/":              "example.com",
		"https://example.com":               "example.com",
	} {
		if got := fallbackTitle(in); got != want {
			t.Errorf("fallbackTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
