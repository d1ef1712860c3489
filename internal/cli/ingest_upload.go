package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"ragd/client"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
	"ragd/wire"
)

// maxUploadFiles bounds the files one uploaded directory may hold, as
// ingest.max_directory_files bounds a directory indexed in place.
const maxUploadFiles = 10000

func indexRequest(o ingestOptions, abs string) wire.IndexRequest {
	return wire.IndexRequest{FilePath: abs, KBName: o.kb, Tags: o.tags, Force: o.force}
}

func directoryRequest(o ingestOptions, abs string) wire.DirectoryRequest {
	return wire.DirectoryRequest{DirectoryPath: abs, KBName: o.kb, Tags: o.tags, Force: o.force, Sync: o.sync}
}

// startUpload uploads a file, or a directory's supported files (walked as
// the server walks one: hidden names and links leading out skipped), one
// request per file so that one refused file does not stop the others.
func (s *session) startUpload(ctx context.Context, c *client.Client, o ingestOptions, t target, g *gauge) (follower, error) {
	files := []uploadFile{{path: t.abs, name: filepath.Base(t.abs)}}
	if t.dir {
		var err error
		if files, err = walkUpload(t.abs); err != nil {
			return &docJobs{}, err
		}
	}
	jobs := &docJobs{entries: make([]docEntry, 0, len(files))}
	for i, f := range files {
		g.set(int64(i), int64(len(files)), "files", "uploading", "")
		e := docEntry{file: f.path}
		up, err := c.Upload(ctx, client.Upload{KBName: o.kb, Tags: o.tags, Force: o.force, Paths: []string{f.path}, Names: []string{f.name}})
		switch {
		case fatalUpload(err):
			return jobs, err
		case err != nil:
			e.status, e.err = "failed", err.Error()
		case len(up.Jobs) != 1:
			e.status, e.err = "failed", fmt.Sprintf("the server answered with %d jobs for one file", len(up.Jobs))
		default:
			j := up.Jobs[0]
			e.jobID, e.documentID, e.dedup = j.JobID, j.DocumentID, j.DedupHit
		}
		jobs.entries = append(jobs.entries, e)
	}
	return jobs, nil
}

// fatalUpload reports whether an upload's error would stop every other
// file too: no answer, no rights, an interrupt.
func fatalUpload(err error) bool {
	var ae *client.APIError
	return client.IsUnreachable(err) || errors.Is(err, context.Canceled) ||
		(errors.As(err, &ae) && (ae.Status == 401 || ae.Status == 403 || ae.Status == 503))
}

// uploadFile is a file to upload and the name it is sent under.
type uploadFile struct{ path, name string }

// walkUpload lists a directory's supported files. Each is sent under its
// path relative to the directory, with "__" for the separator: the server
// keeps only a base name, and two files called README.md in different
// subdirectories must stay two documents.
func walkUpload(dir string) ([]uploadFile, error) {
	roots, err := guard.NewRoots([]string{dir})
	if err != nil {
		return nil, err
	}
	paths, err := ingest.WalkFiles(dir, true, roots, maxUploadFiles)
	if err != nil {
		return nil, err
	}
	base := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		base = real // WalkFiles lists resolved paths
	}
	files := make([]uploadFile, len(paths))
	for i, p := range paths {
		rel, err := filepath.Rel(base, p)
		if err != nil {
			rel = filepath.Base(p)
		}
		files[i] = uploadFile{path: p, name: strings.ReplaceAll(filepath.ToSlash(rel), "/", "__")}
	}
	return files, nil
}
