package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ragd"
)

// WalkFiles lists the supported files under the resolved directory root,
// sorted and symlink-free. Hidden files and directories (".name") are
// skipped, and so are symlinks that resolve outside roots or to
// directories (following those could loop). recursive=false lists root's
// own files only. More than maxFiles files (maxFiles > 0) is a ragd.KindTooLarge
// error, so one request cannot fan out without bound.
func WalkFiles(root string, recursive bool, roots *Roots, maxFiles int) ([]string, error) {
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
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := TypeForExtension(filepath.Ext(p)); !ok {
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
		if maxFiles > 0 && len(files) > maxFiles {
			return tooMany
		}
		return nil
	})
	if err == tooMany {
		return nil, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("directory %s holds more than %d supported files; ingest a smaller directory or raise the limit", root, maxFiles)}
	}
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	slices.Sort(files)
	return files, nil
}
