package sourcesync_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/jobs/sourcesync"
)

// TestGlobs: include and exclude globs in .gitignore syntax from the
// source's root — ** across directories, a directory pattern taking its
// subtree, a pattern without a slash matching at any depth, exclude
// winning over include — and hidden paths left out; CheckGlobs refuses
// an empty or NUL-holding glob naming the field.
func TestGlobs(t *testing.T) {
	cases := []struct {
		include, exclude []string
		take, leave      []string
	}{
		{nil, nil, []string{"a.md", "docs/b/c.md"}, []string{".hidden.md", "docs/.git/x.md"}},
		{[]string{"docs/**"}, nil, []string{"docs/a.md", "docs/b/c.md"}, []string{"a.md", "other/docs/a.md"}},
		{[]string{"*.md"}, []string{"drafts/"}, []string{"a.md", "x/y/z.md"}, []string{"a.txt", "drafts/a.md", "x/drafts/b.md"}},
		{[]string{"guide/"}, []string{"guide/old/**"}, []string{"guide/a.md"}, []string{"guide/old/a.md", "a.md"}},
	}
	for _, c := range cases {
		g := sourcesync.NewGlobs(c.include, c.exclude)
		for _, p := range c.take {
			if !g.Take(p) {
				t.Errorf("include %v exclude %v: %s left out, want taken", c.include, c.exclude, p)
			}
		}
		for _, p := range c.leave {
			if g.Take(p) {
				t.Errorf("include %v exclude %v: %s taken, want left out", c.include, c.exclude, p)
			}
		}
	}
	for _, bad := range []string{"", "  ", "a\x00b", strings.Repeat("x", 1025)} {
		err := sourcesync.CheckGlobs("exclude", []string{"ok/", bad})
		if !strings.Contains(fmt.Sprint(err), "malformed") || fieldOf(err) != "exclude" {
			t.Errorf("CheckGlobs(%q): %v; want invalid naming exclude", bad, err)
		}
	}
	if err := sourcesync.CheckGlobs("include", []string{"docs/**", "!docs/x.md"}); err != nil {
		t.Errorf("good globs: %v", err)
	}
}

// fieldOf is the request field an invalid error names, "" for none.
func fieldOf(err error) string {
	var e *ragd.Error
	if errors.As(err, &e) && e.Kind == ragd.KindInvalid && len(e.Fields) == 1 && len(e.Fields[0].Loc) == 2 {
		return e.Fields[0].Loc[1]
	}
	return ""
}
