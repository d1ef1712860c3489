package gitsync

import (
	"context"
	"net/url"
	"strings"

	"ragd"
	"ragd/internal/jobs/sourcesync"
)

var _ sourcesync.Kind = (*Syncer)(nil)

// Check validates what a git source says: its URL (CheckURL), its ref's
// form, its globs and its ssh key's form (env:VAR).
func (s *Syncer) Check(_ context.Context, src ragd.Source) error {
	if _, err := s.CheckURL(src.URL); err != nil {
		return err
	}
	if strings.ContainsAny(src.Ref, " ~^:?*[\\\x00") || strings.HasPrefix(src.Ref, "-") || len(src.Ref) > 255 {
		return ragd.Invalid("ref", "value_error", "ref %q is not a branch or tag name", src.Ref)
	}
	if err := sourcesync.CheckGlobs("include", src.Include); err != nil {
		return err
	}
	if err := sourcesync.CheckGlobs("exclude", src.Exclude); err != nil {
		return err
	}
	if src.SSHKey != "" && !strings.HasPrefix(src.SSHKey, ragd.SecretPrefix) {
		return ragd.Invalid("ssh_key", "value_error", "ssh_key must be env:VAR, naming the environment variable that holds the deploy key, never the key itself")
	}
	return nil
}

// LocalPath is the path a file:// source reads, as its URL names it; ""
// for a remote one. The caller checks it against the asker's own roots.
func (s *Syncer) LocalPath(src ragd.Source) string {
	if e, _ := s.CheckURL(src.URL); e.Protocol == "file" {
		if u, err := url.Parse(src.URL); err == nil {
			return u.Path
		}
	}
	return ""
}

// Synced keeps nothing: the commit synced is recorded on the source.
func (s *Syncer) Synced(context.Context, *sourcesync.Plan) error { return nil }

// Forget removes the source's clone.
func (s *Syncer) Forget(_ context.Context, src ragd.Source) error { return s.RemoveClone(src.ID) }
