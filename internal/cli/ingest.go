package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"ragd/client"
)

// ingestOptions are ingest's flags.
type ingestOptions struct {
	kb    string
	sync  bool
	force bool
	tags  listFlag
}

// target is one PATH argument, checked on this machine.
type target struct {
	arg, abs string
	dir      bool
}

// runIngest: ragd ingest PATH... Each path inside the server's ingest
// roots is indexed in place; any other is uploaded. All run at once, each
// with its own progress, and end with one summary line each.
func runIngest(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	var o ingestOptions
	fs.StringVar(&o.kb, "kb", "", "namespace to index into (default: default)")
	fs.BoolVar(&o.sync, "sync", false, "directories in the ingest roots: index only new and changed files, delete the documents of files gone")
	fs.BoolVar(&o.force, "force", false, "index even content the namespace already holds")
	fs.Var(&o.tags, "tags", "labels for every document, comma-separated")
	paths, err := s.parse(fs, args, 1, -1)
	if err != nil {
		return err
	}
	targets, err := localTargets(paths)
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	d := s.newDisplay()
	results := make([]*IngestSummary, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		g := newGauge(t.arg, "files")
		d.add(g)
		wg.Go(func() { results[i] = s.ingest(ctx, c, o, t, g) })
	}
	wg.Wait()
	d.wait()
	return s.reportIngest(c.Server(), results)
}

// localTargets checks that every path exists here before anything is sent.
func localTargets(paths []string) ([]target, error) {
	out := make([]target, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, usageErrorf("%s: %v", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, usageErrorf("%s: no such file or directory", p)
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			return nil, usageErrorf("%s: not a regular file or directory", p)
		}
		out[i] = target{arg: p, abs: abs, dir: fi.IsDir()}
	}
	return out, nil
}

// ingest runs one path to its end and sums it up. The gauge ends with it.
func (s *session) ingest(ctx context.Context, c *client.Client, o ingestOptions, t target, g *gauge) *IngestSummary {
	sum := &IngestSummary{Path: t.arg, KBName: o.kb, Mode: ModeInPlace}
	f, err := s.startInPlace(ctx, c, o, t)
	if outsideRoots(err) {
		sum.Mode = ModeUpload
		if o.sync && t.dir {
			s.warnf("%s is not inside the server's ingest roots: uploading it; --sync applies only in place (nothing is deleted)", t.arg)
		}
		f, err = s.startUpload(ctx, c, o, t, g)
	}
	if err == nil {
		err = f.follow(ctx, c, g)
	}
	f.sum(sum)
	sum.finish(g, err)
	return sum
}

// outsideRoots reports whether err is the server's refusal of a path
// outside its ingest roots (or of every path, with none configured).
func outsideRoots(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.Status == 403 && strings.Contains(ae.Detail, "ingest roots")
}

// follower follows what an ingest started until it ends.
type follower interface {
	// follow polls the jobs until all have ended, keeping g up to date.
	follow(ctx context.Context, c *client.Client, g *gauge) error
	// sum adds the counts and errors to the summary.
	sum(s *IngestSummary)
}

// startInPlace asks the server to index the path where it is.
func (s *session) startInPlace(ctx context.Context, c *client.Client, o ingestOptions, t target) (follower, error) {
	if t.dir {
		enq, err := c.IndexDirectory(ctx, directoryRequest(o, t.abs))
		if err != nil || enq.JobID == nil {
			return &dirJob{}, orNoJob(err, enq.JobID)
		}
		return &dirJob{id: *enq.JobID}, nil
	}
	if o.sync {
		s.warnf("%s: --sync applies to directories; indexing the file", t.arg)
	}
	enq, err := c.Index(ctx, indexRequest(o, t.abs))
	if err != nil {
		return &docJobs{}, err
	}
	return &docJobs{entries: []docEntry{{file: t.abs, jobID: enq.JobID, documentID: enq.DocumentID, dedup: enq.DedupHit}}}, nil
}

func orNoJob(err error, id *string) error {
	if err == nil && id == nil {
		return fmt.Errorf("the server answered without a job")
	}
	return err
}
