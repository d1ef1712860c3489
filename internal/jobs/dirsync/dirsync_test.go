package dirsync_test

import (
	"testing"

	"ragd/internal/jobs/dirsync"
)

// A directory source's url is an absolute path or a local file:// URL,
// cleaned; anything else names no directory.
func TestPath(t *testing.T) {
	for _, c := range []struct {
		url, want string
		ok        bool
	}{
		{"/srv/docs", "/srv/docs", true},
		{"/srv/docs/", "/srv/docs", true},
		{"/srv/./docs/../docs", "/srv/docs", true},
		{"file:///srv/docs", "/srv/docs", true},
		{"file://localhost/srv/docs", "/srv/docs", true},
		{"file://host/srv/docs", "", false},
		{"file:///srv/docs?x=1", "", false},
		{"file:///srv/docs#a", "", false},
		{"docs", "", false},
		{"file://docs", "", false},
		{"https://example.org/docs", "", false},
		{"", "", false},
	} {
		got, ok := dirsync.Path(c.url)
		if got != c.want || ok != c.ok {
			t.Errorf("Path(%q) = %q, %v; want %q, %v", c.url, got, ok, c.want, c.ok)
		}
	}
}
