package gitsync

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"ragd"
)

// fetched is a source's repository brought up to date: the commit its ref
// names now.
type fetched struct {
	repo   *git.Repository
	commit plumbing.Hash
}

// fetch brings the source's clone under Dir up to date with its remote
// and resolves its ref. A remote that cannot be reached, refuses ragd or
// lacks the ref fails here, before anything is planned.
func (s *Syncer) fetch(ctx context.Context, src ragd.Source) (fetched, error) {
	e, err := s.CheckURL(src.URL)
	if err != nil {
		return fetched{}, err
	}
	if err := s.CheckAddress(ctx, e); err != nil {
		return fetched{}, err
	}
	am, err := auth(e, src.SSHKey)
	if err != nil {
		return fetched{}, err
	}
	defer s.lockClone(src.ID)()
	repo, err := s.open(src.ID, e)
	if err != nil {
		return fetched{}, err
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	guardHTTP()
	ctx = withDialCheck(ctx, s.Fetcher)
	ca, err := s.caBundle()
	if err != nil {
		return fetched{}, err
	}
	ref, err := s.remoteRef(ctx, repo, src.Ref, am, ca)
	if err != nil {
		return fetched{}, err
	}
	spec := config.RefSpec("+" + ref + ":refs/ragd/synced")
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RefSpecs: []config.RefSpec{spec}, Auth: am,
		Tags: git.NoTags, Force: true, CABundle: ca})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fetched{}, unreachable(src.URL, err)
	}
	if err := s.checkSize(src.ID); err != nil {
		return fetched{}, err
	}
	r, err := repo.Reference("refs/ragd/synced", true)
	if err != nil {
		return fetched{}, fmt.Errorf("git %s: fetched ref: %w", src.URL, err)
	}
	h := r.Hash()
	if tag, err := repo.TagObject(h); err == nil { // an annotated tag: its commit
		c, err := tag.Commit()
		if err != nil {
			return fetched{}, ragd.Invalid("ref", "value_error", "tag %s names no commit", src.Ref)
		}
		h = c.Hash
	}
	return fetched{repo: repo, commit: h}, nil
}

// remoteRef is the remote's full name of ref: a branch, else a tag; an
// empty ref is the remote's default branch.
func (s *Syncer) remoteRef(ctx context.Context, repo *git.Repository, ref string, am transport.AuthMethod, ca []byte) (string, error) {
	rem, err := repo.Remote("origin")
	if err != nil {
		return "", err
	}
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: am, CABundle: ca})
	if err != nil {
		return "", unreachable(rem.Config().URLs[0], err)
	}
	names := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		names[r.Name()] = r
	}
	if ref == "" {
		if h, ok := names[plumbing.HEAD]; ok && h.Type() == plumbing.SymbolicReference {
			return h.Target().String(), nil
		}
		for _, b := range []string{"main", "master"} {
			if _, ok := names[plumbing.NewBranchReferenceName(b)]; ok {
				return plumbing.NewBranchReferenceName(b).String(), nil
			}
		}
		return "", ragd.Invalid("ref", "value_error", "the repository names no default branch: give ref")
	}
	for _, n := range []plumbing.ReferenceName{plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref)} {
		if _, ok := names[n]; ok {
			return n.String(), nil
		}
	}
	return "", ragd.Invalid("ref", "value_error", "the repository has no branch or tag %q", ref)
}

// lockClone takes the source's clone for a fetch (a sync and a dry run
// may fetch at once) and returns its release.
func (s *Syncer) lockClone(id string) func() {
	m, _ := s.clones.LoadOrStore(id, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// open opens the source's bare clone, made on first use, with its remote
// pointing at e.
func (s *Syncer) open(id string, e Endpoint) (*git.Repository, error) {
	dir := s.cloneDir(id)
	repo, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o750); err != nil {
			return nil, ragd.Unavailable("data.dir", err)
		}
		repo, err = git.PlainInit(dir, true)
	}
	if err != nil {
		return nil, ragd.Unavailable("data.dir", fmt.Errorf("git clone %s: %w", dir, err))
	}
	_ = repo.DeleteRemote("origin")
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{e.fetchURL()}}); err != nil {
		return nil, ragd.Unavailable("data.dir", err)
	}
	return repo, nil
}

// cloneDir is where the source's clone lives: <data.dir>/sources/<id>.git.
func (s *Syncer) cloneDir(id string) string { return filepath.Join(s.Dir, id+".git") }

// RemoveClone deletes the source's clone.
func (s *Syncer) RemoveClone(id string) error {
	defer s.lockClone(id)()
	defer s.clones.Delete(id)
	return os.RemoveAll(s.cloneDir(id))
}

// checkSize refuses a clone past MaxRepoBytes.
func (s *Syncer) checkSize(id string) error {
	if s.MaxRepoBytes <= 0 {
		return nil
	}
	var n int64
	_ = filepath.WalkDir(s.cloneDir(id), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	if n > s.MaxRepoBytes {
		return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
			"the repository's clone takes %d bytes, more than sources.git_max_repo_bytes (%d)", n, s.MaxRepoBytes)}
	}
	return nil
}

// unreachable is a fetch that failed: the remote could not be reached or
// refused ragd, or a connection was refused by the address check (a
// redirect to a private address). The sync fails and prunes nothing.
func unreachable(url string, err error) error {
	var refused *ragd.Error
	if errors.As(err, &refused) && refused.Kind == ragd.KindForbidden {
		return refused // the address check: retrying cannot help
	}
	return ragd.Unavailable("git remote", fmt.Errorf("fetch %s: %w", url, err))
}

// maxCABytes bounds the CA file read.
const maxCABytes = 1 << 20

// caBundle is CAFile's certificates, nil without one; a file that cannot
// be read or holds no PEM certificate fails the fetch naming the setting.
func (s *Syncer) caBundle() ([]byte, error) {
	if s.CAFile == "" {
		return nil, nil
	}
	f, err := os.Open(s.CAFile)
	if err == nil {
		defer f.Close()
		var b []byte
		if b, err = io.ReadAll(io.LimitReader(f, maxCABytes)); err == nil {
			if x509.NewCertPool().AppendCertsFromPEM(b) {
				return b, nil
			}
			err = errors.New("it holds no PEM certificate")
		}
	}
	return nil, &ragd.Error{Kind: ragd.KindInvalid, Message: fmt.Sprintf("sources.git_ca_file %s cannot be used: %v", s.CAFile, err)}
}
