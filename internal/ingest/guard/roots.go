package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ragd"
)

// Roots confines file paths to the configured ingest roots.
type Roots struct {
	resolved []string // absolute, symlink-free roots, in configured order
	given    []string // the same roots as configured (made absolute), for lexical checks
}

// NewRoots makes each path absolute and resolves its symlinks. A root that
// does not exist is an error naming it: a typo should fail at startup, not
// turn every later ingest into a refusal.
func NewRoots(paths []string) (*Roots, error) {
	r := &Roots{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("ingest root %q: %w", p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("ingest root %q does not exist or cannot be resolved: %w", p, err)
		}
		r.given = append(r.given, abs)
		r.resolved = append(r.resolved, real)
	}
	return r, nil
}

// String lists the allowed roots, comma separated, for messages.
func (r *Roots) String() string {
	if r == nil || len(r.resolved) == 0 {
		return "(no ingest roots configured)"
	}
	return strings.Join(r.resolved, ", ")
}

// Paths are the roots, absolute and symlink-free, in configured order.
func (r *Roots) Paths() []string { return slices.Clone(r.resolved) }

// Contains reports whether the absolute, symlink-free path abs is a root or
// lies inside one.
func (r *Roots) Contains(abs string) bool {
	return r != nil && within(r.resolved, abs)
}

func within(roots []string, p string) bool {
	p = filepath.Clean(p)
	for _, root := range roots {
		if p == root {
			return true
		}
		rel, err := filepath.Rel(root, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// maxSymlinkHops bounds the symlinks one Resolve follows, as the kernel's
// ELOOP does, so a link cycle is an error rather than a hang.
const maxSymlinkHops = 40

// Resolve maps a requested path to the absolute, symlink-free path of an
// existing file or directory inside the roots. A relative path is tried
// against each root in order; ".." elements, absolute paths outside the
// roots and symlinks leading out of them are refused (ragd.Forbidden); a
// missing path is ragd.Invalid.
//
// Symlinks are followed one component at a time and nothing outside the
// roots (but their ancestors) is ever looked at, so whether a path that
// leads out exists, and where it leads, never shows in the answer: probing
// the filesystem through ragd learns nothing.
func (r *Roots) Resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", ragd.Invalid("file_path", "value_error", "file_path is empty")
	}
	for _, elem := range splitPath(p) {
		if elem == ".." {
			return "", ragd.Forbidden("path %q contains '..'; files must lie inside the ingest roots: %s", p, r)
		}
	}
	if r == nil || len(r.resolved) == 0 {
		return "", ragd.Forbidden("path %q refused: no ingest roots are configured", p)
	}
	if filepath.IsAbs(p) {
		root, rest, ok := r.split(filepath.Clean(p))
		if !ok {
			return "", r.outside(p)
		}
		real, err := r.follow(p, root, rest)
		return real, plain(err)
	}
	var missing missingErr
	for _, root := range r.resolved {
		real, err := r.follow(p, root, splitPath(p))
		if err == nil || !errors.Is(err, errMissing) {
			return real, err
		}
		if missing.e == nil {
			missing = err.(missingErr)
		}
	}
	return "", missing.e
}

func (r *Roots) outside(p string) error {
	return ragd.Forbidden("path %q is outside the ingest roots: %s", p, r)
}

// split finds the root an absolute, clean path lies in, as configured or
// as resolved, and returns the resolved root and the components below it.
func (r *Roots) split(abs string) (root string, rest []string, ok bool) {
	for _, roots := range [][]string{r.resolved, r.given} {
		for i, base := range roots {
			if rel, err := filepath.Rel(base, abs); err == nil && within([]string{base}, abs) {
				return r.resolved[i], splitPath(rel), true
			}
		}
	}
	return "", nil, false
}

// follow walks the components rest from the resolved root, expanding
// symlinks as it goes. A step that would leave the roots is refused before
// anything there is touched; only the roots and their ancestors (which a
// link may pass through, as in "../root2/x") are ever looked at.
func (r *Roots) follow(p, root string, rest []string) (string, error) {
	cur, hops, viaLink := root, 0, false
	for len(rest) > 0 {
		elem := rest[0]
		rest = rest[1:]
		var next string
		switch elem {
		case "", ".":
			continue
		case "..":
			next = filepath.Dir(cur)
		default:
			next = filepath.Join(cur, elem)
		}
		if !r.Contains(next) && !r.ancestor(next) {
			return "", r.outside(p)
		}
		if elem == ".." {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return "", r.lookupErr(p, err, viaLink)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", ragd.Invalid("file_path", "value_error", "cannot resolve %s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", r.lookupErr(p, err, true)
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest, viaLink = append(splitPath(target), rest...), true
	}
	if !r.Contains(cur) {
		return "", r.outside(p)
	}
	return cur, nil
}

// ancestor reports whether dir is a strict ancestor of a root, a place a
// symlink inside one root may pass through on its way to another.
func (r *Roots) ancestor(dir string) bool {
	for _, root := range r.resolved {
		if dir != root && within([]string{dir}, root) {
			return true
		}
	}
	return false
}

func (r *Roots) lookupErr(p string, err error, viaLink bool) error {
	if errors.Is(err, fs.ErrNotExist) {
		msg := "no such file or directory: %s"
		if viaLink {
			msg += " (broken symbolic link)"
		}
		return missingErr{e: ragd.Invalid("file_path", "value_error", msg, p)}
	}
	return ragd.Invalid("file_path", "value_error", "cannot resolve %s: %v", p, UnwrapPathErr(err))
}

// errMissing marks a lookup that found nothing, so Resolve tries the next
// root; callers only ever see the *ragd.Error inside.
var errMissing = errors.New("missing")

type missingErr struct{ e *ragd.Error }

func (m missingErr) Error() string        { return m.e.Error() }
func (m missingErr) Is(target error) bool { return target == errMissing }

// plain returns the *ragd.Error a missingErr carries, other errors as they are.
func plain(err error) error {
	if m, ok := err.(missingErr); ok {
		return m.e
	}
	return err
}

// splitPath splits p at separators, dropping empty elements.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(c rune) bool { return c == '/' || c == filepath.Separator })
}
