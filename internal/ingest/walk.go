package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"ragd"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

// WalkOptions selects what WalkFilesWith lists.
type WalkOptions struct {
	// Recursive descends into subdirectories; false lists root's own files.
	Recursive bool
	// IncludeIgnored lists what the ignore rules leave out (Skipper):
	// node_modules and what .gitignore and .ragdignore files exclude.
	// Hidden entries stay out.
	IncludeIgnored bool
	// MaxFiles > 0 bounds the files listed (a ragd.KindTooLarge error
	// past it), so one request cannot fan out without bound.
	MaxFiles int
	// Take, when set, is asked of each supported file's path relative to
	// root (slash-separated): a file it refuses is left out, and not
	// counted against MaxFiles (a source's include and exclude globs).
	Take func(rel string) bool
}

// WalkFiles is WalkFilesWith without IncludeIgnored.
func WalkFiles(root string, recursive bool, roots *guard.Roots, maxFiles int) ([]string, error) {
	return WalkFilesWith(root, roots, WalkOptions{Recursive: recursive, MaxFiles: maxFiles})
}

// WalkFilesWith lists the supported files under the resolved directory
// root, sorted and symlink-free. What a Skipper of root skips is left out
// (hidden entries, and unless o.IncludeIgnored node_modules and what
// ignore files exclude), and so are symlinks that resolve outside roots or
// to directories (following those could loop).
func WalkFilesWith(root string, roots *guard.Roots, o WalkOptions) ([]string, error) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // so the files found compare equal to resolved roots
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, ragd.Invalid("file_path", "value_error", "no such file or directory: %s", root)
	}
	if !info.IsDir() {
		return nil, ragd.Invalid("file_path", "value_error", "not a directory: %s", root)
	}
	skipper := NewSkipper(root, o.IncludeIgnored)
	seen := map[string]bool{}
	var files []string
	tooMany := fmt.Errorf("too many files")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable entry is skipped, not fatal
		}
		if p == root {
			return nil
		}
		if d.IsDir() {
			if !o.Recursive {
				return filepath.SkipDir
			}
			skip, err := skipper.Skip(p, true)
			if skip {
				return filepath.SkipDir
			}
			return err
		}
		if _, ok := sourcetype.ForName(p); !ok {
			return nil // before matching: most files are of other types
		}
		if skip, err := skipper.Skip(p, false); err != nil || skip {
			return err
		}
		if o.Take != nil && !o.Take(relSlash(root, p)) {
			return nil
		}
		real := p
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if real, err = filepath.EvalSymlinks(p); err != nil {
				return nil
			}
			if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
				return nil
			}
		case !d.Type().IsRegular():
			return nil // sockets, devices, pipes
		}
		if !roots.Contains(real) || seen[real] {
			return nil
		}
		seen[real] = true
		files = append(files, real)
		if o.MaxFiles > 0 && len(files) > o.MaxFiles {
			return tooMany
		}
		return nil
	})
	if err == tooMany {
		return nil, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("directory %s holds more than %d supported files; ingest a smaller directory or raise the limit", root, o.MaxFiles)}
	}
	var bounded *ragd.Error // an ignore file past its bounds
	if errors.As(err, &bounded) {
		return nil, bounded
	}
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	slices.Sort(files)
	return files, nil
}

// relSlash is p's path relative to root, slash-separated.
func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}
