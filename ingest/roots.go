package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Resolve maps a requested path to the absolute, symlink-free path of an
// existing file or directory inside the roots. A relative path is tried
// against each root in order; ".." elements, absolute paths outside the
// roots and symlinks leading out of them are refused (ragd.Forbidden); a
// missing path is ragd.Invalid.
func (r *Roots) Resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", ragd.Invalid("file_path", "value_error", "file_path is empty")
	}
	for _, elem := range strings.FieldsFunc(p, func(c rune) bool { return c == '/' || c == filepath.Separator }) {
		if elem == ".." {
			return "", ragd.Forbidden("path %q contains '..'; files must lie inside the ingest roots: %s", p, r)
		}
	}
	if r == nil || len(r.resolved) == 0 {
		return "", ragd.Forbidden("path %q refused: no ingest roots are configured", p)
	}
	var candidate string
	if filepath.IsAbs(p) {
		candidate = filepath.Clean(p)
		if !within(r.given, candidate) && !within(r.resolved, candidate) {
			return "", ragd.Forbidden("path %q is outside the ingest roots: %s", p, r)
		}
	} else {
		for i, root := range r.resolved {
			c := filepath.Join(root, p)
			if _, err := os.Lstat(c); err == nil || i == len(r.resolved)-1 {
				candidate = c
				break
			}
		}
	}
	real, err := filepath.EvalSymlinks(candidate)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(candidate); lerr == nil {
			// the path exists but is a dangling symlink
			return "", ragd.Invalid("file_path", "value_error", "no such file or directory: %s (broken symbolic link)", p)
		}
		return "", ragd.Invalid("file_path", "value_error", "no such file or directory: %s", p)
	}
	if err != nil {
		return "", ragd.Invalid("file_path", "value_error", "cannot resolve %s: %v", p, err)
	}
	if !r.Contains(real) {
		return "", ragd.Forbidden("path %q resolves to %s, outside the ingest roots: %s", p, real, r)
	}
	return real, nil
}
