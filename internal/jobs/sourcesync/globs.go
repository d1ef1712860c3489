package sourcesync

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"ragd"
)

// CheckGlobs refuses an include or exclude pattern (field) that is
// empty, holds a NUL or is longer than 1,024 bytes; the patterns are
// .gitignore's syntax.
func CheckGlobs(field string, globs []string) error {
	for _, g := range globs {
		if strings.TrimSpace(g) == "" || strings.ContainsRune(g, 0) || len(g) > 1024 {
			return ragd.Invalid(field, "value_error", "glob %q is empty or malformed", g)
		}
	}
	return nil
}

// Hidden reports a path (split at "/") with a segment starting with a
// dot, which a directory walk skips too.
func Hidden(parts []string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(p, ".") })
}

// Globs are a source's include and exclude globs, in .gitignore syntax
// from the root of what the source reads (`docs/**`, `*.md`, `drafts/`).
type Globs struct {
	include, exclude gitignore.Matcher
	any              bool // include has patterns
}

// NewGlobs parses a source's include and exclude globs (checked by
// CheckGlobs).
func NewGlobs(include, exclude []string) Globs {
	return Globs{include: gitignore.NewMatcher(GlobPatterns(include)), exclude: gitignore.NewMatcher(GlobPatterns(exclude)),
		any: len(include) > 0}
}

// Take reports whether the file at rel (slash-separated, from the
// source's root) is in scope: no segment hidden, taken by include when
// there is one, not left out by exclude.
func (g Globs) Take(rel string) bool {
	parts := strings.Split(rel, "/")
	return !Hidden(parts) && !g.exclude.Match(parts, false) && (!g.any || g.include.Match(parts, false))
}

// GlobPatterns parses globs as .gitignore patterns rooted at the
// source's root.
func GlobPatterns(globs []string) []gitignore.Pattern {
	ps := make([]gitignore.Pattern, len(globs))
	for i, g := range globs {
		ps[i] = gitignore.ParsePattern(g, nil)
	}
	return ps
}
