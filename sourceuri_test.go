package ragd_test

import (
	"strings"
	"testing"

	"ragd"
)

// Every form of source URI ragd writes is spelled as stored documents
// hold it, and comes apart again into the parts it was built from.
func TestSourceURIRoundTrip(t *testing.T) {
	hash := ragd.ContentHash([]byte("hello"))[:32]
	for _, c := range []struct {
		built, want string
		parts       ragd.SourceURI
	}{
		{ragd.FileURI("/srv/docs/a b+c#d.txt"), "file:///srv/docs/a b+c#d.txt",
			ragd.SourceURI{Scheme: ragd.SchemeFile, Path: "/srv/docs/a b+c#d.txt"}},
		{ragd.TextURI("", "hello"), "text://" + hash, ragd.SourceURI{Scheme: ragd.SchemeText, Hash: hash}},
		{ragd.TextURI("~0123abcd/", "hello"), "text://~0123abcd/" + hash,
			ragd.SourceURI{Scheme: ragd.SchemeText, Scope: "~0123abcd/", Hash: hash}},
		{ragd.UploadURI("kb", "", "notes.md"), "upload://kb/notes.md",
			ragd.SourceURI{Scheme: ragd.SchemeUpload, Namespace: "kb", Name: "notes.md"}},
		{ragd.UploadURI("kb", "~0123abcd/", "notes.md"), "upload://kb/~0123abcd/notes.md",
			ragd.SourceURI{Scheme: ragd.SchemeUpload, Namespace: "kb", Scope: "~0123abcd/", Name: "notes.md"}},
		{ragd.GitURI("https://example.com/r.git", "main", "docs/a.md"), "git+https://example.com/r.git?ref=main#docs/a.md",
			ragd.SourceURI{Scheme: ragd.SchemeItem, Kind: ragd.SourceGit, Where: "https://example.com/r.git?ref=main", Item: "docs/a.md"}},
		{ragd.SourceItemURI(ragd.SourceWeb, "https://example.com/", "https://example.com/a?b=c"),
			"web+https://example.com/#https://example.com/a?b=c",
			ragd.SourceURI{Scheme: ragd.SchemeItem, Kind: ragd.SourceWeb, Where: "https://example.com/", Item: "https://example.com/a?b=c"}},
		{ragd.SourceItemURI(ragd.SourceS3, "https://s3.example.com/bucket/pre/", "pre/k#1.txt"),
			"s3+https://s3.example.com/bucket/pre/#pre/k#1.txt",
			ragd.SourceURI{Scheme: ragd.SchemeItem, Kind: ragd.SourceS3, Where: "https://s3.example.com/bucket/pre/", Item: "pre/k#1.txt"}},
		{ragd.SourceURI{Scheme: ragd.SchemeHTTPS, URL: "https://example.com/a?b=c"}.String(), "https://example.com/a?b=c",
			ragd.SourceURI{Scheme: ragd.SchemeHTTPS, URL: "https://example.com/a?b=c"}},
		{ragd.SourceURI{Scheme: ragd.SchemeHTTP, URL: "http://example.com/"}.String(), "http://example.com/",
			ragd.SourceURI{Scheme: ragd.SchemeHTTP, URL: "http://example.com/"}},
	} {
		if c.built != c.want {
			t.Errorf("built %q, want %q", c.built, c.want)
		}
		got, err := ragd.ParseSourceURI(c.want)
		if err != nil || got != c.parts {
			t.Errorf("ParseSourceURI(%q) = %+v, %v; want %+v", c.want, got, err, c.parts)
		}
		if s := c.parts.String(); s != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.parts, s, c.want)
		}
	}
}

// What ragd never writes is refused; the scheme of a malformed URI of
// ragd's own forms is still given, so a caller can say which it breaks.
func TestParseSourceURIRefuses(t *testing.T) {
	hash := strings.Repeat("0", 32)
	for _, c := range []struct {
		s      string
		scheme ragd.SourceScheme
	}{
		{"", ""},
		{"/srv/docs/a.txt", ""},
		{"ftp://example.com/a.txt", ""},
		{"FILE:///srv/a.txt", ""},
		{"TEXT://" + hash, ""},
		{"Upload://kb/a.txt", ""},
		{"text://hello", ragd.SchemeText},
		{"text://" + hash[:31], ragd.SchemeText},
		{"text://" + strings.Repeat("A", 32), ragd.SchemeText},
		{"text://~zzzzzzzz/" + hash, ragd.SchemeText},
		{"text://~0123abcd" + hash, ragd.SchemeText},
		{"upload://kb", ragd.SchemeUpload},
		{"upload:///a.txt", ragd.SchemeUpload},
		{"upload://kb/~0123abc/a.txt", ragd.SchemeUpload},
		{"git+https://example.com/r.git?ref=main", ragd.SchemeItem},
		{"git+#a.md", ragd.SchemeItem},
		{"svn+https://example.com/r#a.md", ""},
		{"directory+/srv/docs#a.txt", ""},
	} {
		got, err := ragd.ParseSourceURI(c.s)
		if err == nil || got.Scheme != c.scheme {
			t.Errorf("ParseSourceURI(%q) = %+v, %v; want an error and scheme %q", c.s, got, err, c.scheme)
		}
	}
}

// The readers of one form each: a file's path, a git source's ref and
// path, an item of a kind, an upload moved to another namespace, and a
// file:// URL read as a source's url is.
func TestSourceURIReaders(t *testing.T) {
	git := ragd.GitURI("https://example.com/r.git", "v1", "a.md")
	if p, ok := ragd.URIFilePath("file:///srv/a.txt"); !ok || p != "/srv/a.txt" {
		t.Errorf("URIFilePath = %q, %v", p, ok)
	}
	if _, ok := ragd.URIFilePath(git); ok {
		t.Errorf("URIFilePath(%q) ok", git)
	}
	if p, ok := ragd.GitURIPath(git); !ok || p != "a.md" {
		t.Errorf("GitURIPath = %q, %v", p, ok)
	}
	if _, ok := ragd.SourceItem(ragd.SourceWeb, git); ok {
		t.Errorf("SourceItem(web, %q) ok", git)
	}
	if u, _ := ragd.ParseSourceURI(git); !gitRefIs(u, "https://example.com/r.git", "v1") {
		t.Errorf("GitRef of %q is not the repository and ref", git)
	}
	for _, c := range []struct{ src, want string }{
		{"upload://a/~0123abcd/n.md", "upload://b/~0123abcd/n.md"},
		{"upload://a/n.md", "upload://b/n.md"},
		{"upload://ab/n.md", "upload://ab/n.md"},
		{"file:///a/n.md", "file:///a/n.md"},
	} {
		if got := ragd.MoveUploadURI(c.src, "a", "b"); got != c.want {
			t.Errorf("MoveUploadURI(%q) = %q, want %q", c.src, got, c.want)
		}
	}
	for _, c := range []struct {
		s, want string
		ok      bool
	}{
		{"file:///srv/a%20b", "/srv/a b", true},
		{"file://localhost/srv", "/srv", true},
		{"file://host/srv", "", false},
		{"file:///srv?x", "", false},
		{"https://example.com/srv", "", false},
	} {
		u, _ := ragd.ParseSourceURI(c.s)
		if p, ok := u.FileURLPath(); p != c.want || ok != c.ok {
			t.Errorf("FileURLPath of %q = %q, %v; want %q, %v", c.s, p, ok, c.want, c.ok)
		}
	}
}

func gitRefIs(u ragd.SourceURI, repo, ref string) bool {
	r, f, ok := u.GitRef()
	return ok && r == repo && f == ref
}
