package library

import "testing"

// core_ingest's source_uri names a file (a file:// URI's path, or a path
// as given), a URL (an http(s) URI, its scheme in any case, or
// source_type url) or, with source_type text, the text itself.
func TestIngestRequestIndexRequest(t *testing.T) {
	for _, c := range []struct {
		uri, typ, content string
		file, url, text   string
	}{
		{uri: "/srv/docs/a.txt", file: "/srv/docs/a.txt"},
		{uri: "file:///srv/docs/a.txt", file: "/srv/docs/a.txt"},
		{uri: "file://docs/a.txt", file: "docs/a.txt"},
		{uri: "FILE:///srv/docs/a.txt", file: "FILE:///srv/docs/a.txt"},
		{uri: "text://0123", file: "text://0123"},
		{uri: "https://example.com/a", url: "https://example.com/a"},
		{uri: "HTTP://example.com/a", url: "HTTP://example.com/a"},
		{uri: "example.com/a", typ: "URL", url: "example.com/a"},
		{uri: "file:///srv/a.txt", typ: "text", text: "file:///srv/a.txt"},
		{content: "notes", text: "notes"},
	} {
		got := IngestRequest{SourceURI: c.uri, SourceType: c.typ, Content: c.content}.IndexRequest()
		if got.FilePath != c.file || got.URL != c.url || got.Text != c.text {
			t.Errorf("%q (type %q): file %q, url %q, text %q; want %q, %q, %q", c.uri, c.typ, got.FilePath, got.URL, got.Text, c.file, c.url, c.text)
		}
	}
}
