package archive

import (
	"strings"
	"testing"

	"ragd"
)

// An archived document's source is taken apart by ragd.ParseSourceURI,
// so one ragd never writes is refused: an upper-case scheme of ragd's
// own (ragd writes file://, text:// and upload:// in lower case), or a
// git source whose ref is not in its repository part. The forms ragd
// writes are admitted.
func TestAdmitSourceForms(t *testing.T) {
	r := &admission{from: "src"}
	hash := strings.Repeat("0", 32)
	for _, c := range []struct {
		source string
		typ    ragd.SourceType
		ok     bool
	}{
		{"file:///docs/a.txt", ragd.SourceText, true},
		{"text://" + hash, ragd.SourceText, true},
		{"text://~0123abcd/" + hash, ragd.SourceText, true},
		{"upload://src/a.txt", ragd.SourceText, true},
		{"upload://src/~0123abcd/a.txt", ragd.SourceText, true},
		{"https://example.com/a", ragd.SourceHTML, true},
		{"git+https://example.com/r.git?ref=main#docs/a.md", ragd.SourceMarkdown, true},
		{"FILE:///docs/a.txt", ragd.SourceText, false},
		{"TEXT://" + hash, ragd.SourceText, false},
		{"Upload://src/a.txt", ragd.SourceText, false},
		{"git+https://example.com/r.git#a?ref=.md", ragd.SourceMarkdown, false},
	} {
		err := r.source(ragd.Document{Source: c.source, SourceType: c.typ})
		if (err == nil) != c.ok {
			t.Errorf("source %q: err %v, want admitted %v", c.source, err, c.ok)
		}
	}
}
