package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ragd"
	"ragd/wire"
)

// runSources: ragd sources add URL, ls, sync ID (followed with a progress
// bar) and rm ID — the sources a server keeps in sync (POST /sources).
func runSources(ctx context.Context, s *session, args []string) error {
	sub := first(args)
	if len(args) > 0 {
		args = args[1:]
	}
	switch sub {
	case "add":
		return s.addSource(ctx, args)
	case "ls", "":
		return s.listSources(ctx, args)
	case "sync":
		return s.syncSource(ctx, args)
	case "rm":
		return s.removeSource(ctx, args)
	}
	return usageErrorf("usage: ragd sources add URL | ls | sync ID | rm ID")
}

func (s *session) addSource(ctx context.Context, args []string) error {
	fs := s.flags()
	req := wire.SourceRequest{}
	var include, exclude, tags, access listFlag
	var kind string
	fs.StringVar(&kind, "kind", "", "git, web, s3 or directory (default: s3 for an s3:// URL, git otherwise)")
	fs.StringVar(&req.KBName, "kb", "", "namespace its documents go to (default: default)")
	fs.StringVar(&req.Endpoint, "endpoint", "", "s3: the S3 endpoint, http(s)://host[:port]")
	fs.StringVar(&req.Region, "region", "", "s3: the bucket's region")
	fs.StringVar(&req.AccessKey, "access-key", "", "s3: env:VAR, the server's variable holding the access key id")
	fs.StringVar(&req.SecretKey, "secret-key", "", "s3: env:VAR, the server's variable holding the secret key")
	fs.IntVar(&req.MaxPages, "max-pages", 0, "web: the most pages in scope (default: the server's)")
	fs.IntVar(&req.MaxDepth, "max-depth", 0, "web: how many links deep the crawl goes (default: the server's)")
	fs.StringVar(&req.Ref, "ref", "", "branch or tag (default: the remote's default branch)")
	fs.StringVar(&req.Every, "every", "", "sync on a schedule this often, e.g. 1h")
	fs.StringVar(&req.SSHKey, "ssh-key", "", "for ssh URLs: env:VAR, the server's variable holding the deploy key")
	fs.Var(&include, "include", "globs of the paths to index, comma-separated")
	fs.Var(&exclude, "exclude", "globs of the paths never indexed, comma-separated")
	fs.Var(&tags, "tags", "labels for every document, comma-separated")
	fs.Var(&access, "access", "groups every document is shared with, comma-separated")
	pos, err := s.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	req.URL, req.Include, req.Exclude, req.Tags = pos[0], include, exclude, tags
	req.Kind = ragd.SourceKind(kind)
	if kind == "" {
		req.Kind = ragd.SourceGit
		if strings.HasPrefix(req.URL, "s3://") {
			req.Kind = ragd.SourceS3
		}
	}
	if len(access) > 0 {
		req.Access = access
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	src, err := c.CreateSource(ctx, req)
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(src)
	}
	s.printf("source %s: %s into %s\n", src.ID, src.URL, src.Namespace)
	return nil
}

func (s *session) listSources(ctx context.Context, args []string) error {
	fs := s.flags()
	kb := fs.String("kb", "", "only this namespace's sources")
	if _, err := s.parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	list, err := c.ListSources(ctx, *kb)
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(list)
	}
	for _, src := range list.Sources {
		s.printf("%s  %s  %s@%s  %s\n", src.ID, src.Namespace, src.URL, orDash(src.Ref), sourceState(src))
	}
	return nil
}

// sourceState is a source's last and next sync, in a few words.
func sourceState(src ragd.Source) string {
	var parts []string
	if l := src.LastSync; l != nil {
		parts = append(parts, fmt.Sprintf("last %s %s (+%d ~%d -%d, %d unchanged)", l.Outcome, l.At.Format(time.DateTime),
			l.Added, l.Changed, l.Deleted, l.Unchanged))
	} else {
		parts = append(parts, "never synced")
	}
	if src.NextSync != nil {
		parts = append(parts, "next "+src.NextSync.Format(time.DateTime))
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (s *session) syncSource(ctx context.Context, args []string) error {
	fs := s.flags()
	force := fs.Bool("force", false, "sync even after a force push or when more than half of the documents would go")
	pos, err := s.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	e, err := c.SyncSource(ctx, pos[0], *force)
	if err != nil {
		return err
	}
	if e.JobID == nil {
		return &failedError{msg: "the server started no sync job"}
	}
	d := s.newDisplay()
	g := newGauge("sync "+pos[0], "files")
	d.add(g)
	dj := &dirJob{id: *e.JobID}
	err = dj.follow(ctx, c, g)
	g.finish(err != nil || dj.last == nil || dj.last.Status != ragd.JobCompleted)
	d.wait()
	if err != nil {
		return err
	}
	if s.globals.json {
		if err := s.emit(dj.last); err != nil {
			return err
		}
	}
	if dj.last.Status != ragd.JobCompleted {
		return &failedError{msg: fmt.Sprintf("sync %s %s: %s", dj.last.ID, dj.last.Status, dj.last.Error)}
	}
	return nil
}

func (s *session) removeSource(ctx context.Context, args []string) error {
	fs := s.flags()
	keep := fs.Bool("keep-documents", false, "keep the documents it brought")
	pos, err := s.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	res, err := c.DeleteSource(ctx, pos[0], *keep)
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(res)
	}
	s.printf("source %s deleted, %d documents with it\n", res.SourceID, res.DocumentsDeleted)
	return nil
}
