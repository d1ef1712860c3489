package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"ragd"
)

// What a directory walk leaves out, beyond hidden entries: trees that are
// a project's dependencies or build output rather than its documents. A
// README example indexing "." once took in 202 node_modules READMEs.
//
// Patterns are matched by go-git's gitignore package: it keeps each
// pattern's directory (so a nested file applies to its subtree only),
// answers a negation as an explicit include (so the deepest, last matching
// pattern wins, as in git), and anchors patterns with an inner slash to
// their file's directory, which regexp-based ports get wrong.

// ignoreFiles are read in every directory walked, in this order: a later
// file's patterns win, so a .ragdignore can re-include (!pattern) what the
// .gitignore excludes from git but is worth indexing.
var ignoreFiles = [...]string{".gitignore", ".ragdignore"}

// skippedDirs are left out at any depth, ignore files or not. A data
// directory is not among them: many a project keeps its documents in one,
// and ragd's own (./data under a checkout, from make run) holds no file of
// a supported type; this repository's .gitignore excludes it anyway.
var skippedDirs = map[string]bool{"node_modules": true}

// Bounds on the ignore files one walk reads, together: they come with
// the directory and so may be hostile, and every directory and supported
// file walked is matched against the patterns in scope (some 0.2 ms per
// entry for 1000 patterns), so these bound the walk's memory and time.
// Real ones are far smaller: GitHub's largest templates hold a few hundred
// lines in under 8 KiB.
const (
	maxIgnoreBytes    = 64 << 10
	maxIgnorePatterns = 1000
)

// IsIgnoreFile reports whether name is one of the files whose patterns
// decide what a walk skips, so a watcher can react to their changes.
func IsIgnoreFile(name string) bool {
	return name == ignoreFiles[0] || name == ignoreFiles[1]
}

// Skipper decides what a walk of one root leaves out: hidden entries
// always; unless it includes ignored ones, also node_modules and what
// .gitignore and .ragdignore files at or below the root exclude (those
// above it are not read: the root is the whole project). Everything that
// lists a root's files (WalkFiles, the sync plan built on it, the
// watcher's directory watches) asks one, so they agree on the listing. It
// reads each directory's ignore files once, when first asked about an
// entry in it, and is not safe for concurrent use.
type Skipper struct {
	root           string
	includeIgnored bool
	scopes         map[string]*ignoreScope // by directory relative to root; nil: no patterns
	bytes          int                     // read so far, against maxIgnoreBytes
	patterns       int                     // read so far, against maxIgnorePatterns
}

// ignoreScope is one directory's patterns, after those of the directories
// above it.
type ignoreScope struct {
	parent   *ignoreScope
	depth    int // of the directory below the root: the patterns' domain
	patterns []ignorePattern
}

type ignorePattern struct {
	gitignore.Pattern
	// name: a pattern without a slash, which gitignore matches against
	// an entry's own name. go-git tries it on every component of the
	// path, but the walk asked about each ancestor already (a skipped
	// one is never entered), so it is matched against the domain and
	// the name alone: as git does, and several times faster on deep
	// paths.
	name bool
}

// NewSkipper returns the skipper of a walk of root.
func NewSkipper(root string, includeIgnored bool) *Skipper {
	return &Skipper{root: filepath.Clean(root), includeIgnored: includeIgnored, scopes: map[string]*ignoreScope{}}
}

// Skip reports whether the walk leaves out path, an entry under the root
// (a directory if isDir) whose parent it does not leave out. The root and
// paths outside it are never skipped. The error is a ragd.KindTooLarge one
// when an ignore file passes the bounds.
func (s *Skipper) Skip(path string, isDir bool) (bool, error) {
	rel, err := filepath.Rel(s.root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false, nil
	}
	name := filepath.Base(rel)
	switch {
	case strings.HasPrefix(name, "."):
		return true, nil
	case s.includeIgnored:
		return false, nil
	case isDir && skippedDirs[name]:
		return true, nil
	}
	sc, err := s.scope(filepath.Dir(rel))
	if err != nil {
		return false, err
	}
	return sc.excludes(strings.Split(filepath.ToSlash(rel), "/"), isDir), nil
}

// scope returns the patterns in force in dir (relative to the root),
// reading its ignore files and its parents' on first use.
func (s *Skipper) scope(dir string) (*ignoreScope, error) {
	if sc, ok := s.scopes[dir]; ok {
		return sc, nil
	}
	var parent *ignoreScope
	var domain []string
	if dir != "." {
		var err error
		if parent, err = s.scope(filepath.Dir(dir)); err != nil {
			return nil, err
		}
		domain = strings.Split(filepath.ToSlash(dir), "/")
	}
	var patterns []ignorePattern
	for _, name := range ignoreFiles {
		path := filepath.Join(s.root, dir, name)
		b, err := readIgnoreFile(path, maxIgnoreBytes-s.bytes)
		if s.bytes += len(b); err != nil {
			return nil, s.tooLarge(fmt.Sprintf("%d bytes", maxIgnoreBytes), path)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if s.patterns++; s.patterns > maxIgnorePatterns {
				return nil, s.tooLarge(fmt.Sprintf("%d patterns", maxIgnorePatterns), path)
			}
			patterns = append(patterns, ignorePattern{gitignore.ParsePattern(line, domain), isNamePattern(line)})
		}
	}
	sc := parent
	if len(patterns) > 0 {
		sc = &ignoreScope{parent: parent, depth: len(domain), patterns: patterns}
	}
	s.scopes[dir] = sc
	return sc, nil
}

// excludes applies gitignore's precedence: the deepest directory's
// patterns first, the last matching pattern of a directory winning.
func (sc *ignoreScope) excludes(path []string, isDir bool) bool {
	for ; sc != nil; sc = sc.parent {
		named := append(path[:sc.depth:sc.depth], path[len(path)-1])
		for i := len(sc.patterns) - 1; i >= 0; i-- {
			p := path
			if sc.patterns[i].name {
				p = named
			}
			switch sc.patterns[i].Match(p, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// isNamePattern reports whether a pattern line has no slash but maybe a
// trailing one, reading it as gitignore.ParsePattern does.
func isNamePattern(line string) bool {
	line = strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " ")
	}
	return !strings.Contains(strings.TrimSuffix(line, "/"), "/")
}

func (s *Skipper) tooLarge(bound, at string) error {
	return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
		"the ignore files (.gitignore, .ragdignore) under %s hold more than %s, passed at %s; shorten them or set include_ignored",
		s.root, bound, at)}
}

// errIgnoreTooLarge is an ignore file larger than the bytes left to read.
var errIgnoreTooLarge = errors.New("ignore file too large")

// readIgnoreFile returns an ignore file's bytes, or errIgnoreTooLarge past
// max. A missing or unreadable one is empty, and so is a symbolic link,
// which git does not follow either (and which could make ragd read a file
// outside the roots); opening non-blocking and checking the type keeps a
// FIFO from hanging the walk.
func readIgnoreFile(path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	} else if fi.Size() > int64(max) {
		return nil, errIgnoreTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1)) // it may have grown since the stat
	switch {
	case err != nil:
		return nil, nil
	case len(b) > max:
		return nil, errIgnoreTooLarge
	}
	return b, nil
}
