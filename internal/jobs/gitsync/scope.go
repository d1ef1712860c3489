package gitsync

import (
	"errors"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"

	"ragd"
	"ragd/internal/ingest/sourcetype"
	"ragd/internal/jobs/sourcesync"
)

// maxIgnoreBytes bounds a .gitignore file read for the scope.
const maxIgnoreBytes = 1 << 20

// scope is the paths of a tree a source indexes, with their blobs.
type scope struct {
	files map[string]plumbing.Hash
}

// scope lists tree's regular files ragd can read that the source's
// include globs (when given) take and neither its exclude globs nor the
// repository's .gitignore files leave out. More than MaxFiles of them
// fail the plan.
func (s *Syncer) scope(src ragd.Source, tree *object.Tree) (scope, error) {
	ignore, err := ignorePatterns(tree)
	if err != nil {
		return scope{}, err
	}
	ignored := gitignore.NewMatcher(append(ignore, sourcesync.GlobPatterns(src.Exclude)...))
	include := gitignore.NewMatcher(sourcesync.GlobPatterns(src.Include))
	sc := scope{files: map[string]plumbing.Hash{}}
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, e, err := walker.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sc, err
		}
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
			continue
		}
		parts := strings.Split(name, "/")
		if _, ok := sourcetype.ForName(path.Base(name)); !ok || ignored.Match(parts, false) || sourcesync.Hidden(parts) ||
			(len(src.Include) > 0 && !include.Match(parts, false)) {
			continue
		}
		sc.files[name] = e.Hash
		if s.MaxFiles > 0 && len(sc.files) > s.MaxFiles {
			return sc, &ragd.Error{Kind: ragd.KindTooLarge, Message: "the source has more than sources.git_max_files (" +
				itoa(s.MaxFiles) + ") files in scope: narrow it with include or exclude"}
		}
	}
	return sc, nil
}

// ignorePatterns reads every .gitignore file of tree.
func ignorePatterns(tree *object.Tree) ([]gitignore.Pattern, error) {
	var ps []gitignore.Pattern
	err := tree.Files().ForEach(func(f *object.File) error {
		if path.Base(f.Name) != ".gitignore" || f.Size > maxIgnoreBytes {
			return nil
		}
		text, err := f.Contents()
		if err != nil {
			return err
		}
		var domain []string
		if dir := path.Dir(f.Name); dir != "." {
			domain = strings.Split(dir, "/")
		}
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
		return nil
	})
	return ps, err
}

func sortStrings(lists ...[]string) {
	for _, l := range lists {
		slices.Sort(l)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
