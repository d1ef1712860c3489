package library

import (
	"context"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs"
	"ragd/wire"
)

// AccessParam validates a request's access (ragd.NormalizeAccess) into
// the payload's form: nil when not given, so the document keeps its own.
func AccessParam(access []string) (*[]string, error) {
	if access == nil {
		return nil, nil
	}
	n, err := ragd.NormalizeAccess("access", access)
	if err != nil {
		return nil, err
	}
	if n == nil {
		n = []string{} // given and open: not "not given"
	}
	return &n, nil
}

// ViewerOf is the payload's Viewer for ctx's principal.
func ViewerOf(ctx context.Context) *[]string {
	aud := ragd.AudienceIn(ctx)
	if aud.All() {
		return nil
	}
	groups := aud.Groups()
	if groups == nil {
		groups = []string{}
	}
	return &groups
}

// mayReplace refuses an index request for a source whose document the
// caller may not see (its job would replace a document hidden from it),
// or whose access the request would change where the caller may not
// (ragd.Audience.MayShare).
func (s *Service) mayReplace(ctx context.Context, pl jobs.DocumentPayload) error {
	return s.Registry.MayIndex(ctx, pl.Namespace, pl.DocumentID, pl.Access)
}

// AccessRequest is wire.AccessRequest, the contract REST, MCP and the client share.
type AccessRequest = wire.AccessRequest

// SetAccess changes who may see a document, without re-indexing it: an
// operator (who sees every document) or a principal in one of the
// document's groups may; others get the 404 of a missing document when
// they cannot see it, 403 when they can (an open document).
func (s *Service) SetAccess(ctx context.Context, kb, id string, req AccessRequest) (*ragd.Document, error) {
	if req.Access == nil {
		return nil, ragd.Invalid("access", "missing", "access is required: the groups to share the document with ([] for everyone who may use the namespace)")
	}
	access, err := ragd.NormalizeAccess("access", *req.Access)
	if err != nil {
		return nil, err
	}
	doc, err := s.Document(ctx, kb, id)
	if err != nil {
		return nil, err
	}
	lease, err := s.Versions.Lock(ctx, doc.Namespace, doc.ID)
	if err != nil {
		return nil, err
	}
	defer lease.Release()
	// Read again under the lock: a job may have made another version
	// current, or a PATCH another access, which the caller may not see or
	// change; it is asked again of what is there now.
	if doc, err = s.Document(ctx, kb, id); err != nil {
		return nil, err
	}
	if err := ragd.AudienceIn(ctx).MayShare(doc, &access); err != nil {
		return nil, err
	}
	shared, err := s.Versions.Share(ctx, lease, *doc, access)
	if err != nil {
		return nil, err
	}
	return &shared, nil
}

// resolve maps a requested path to a file or directory inside the ingest
// roots (guard.Roots.Resolve) and, for a principal with roots of its own
// (authn.Principal.Roots), inside those: a relative path is tried against
// the principal's roots, and a path outside them is refused exactly as
// one outside the ingest roots is. Every index request resolves its path
// here, so a request outside the roots is refused before any job exists.
func (s *Service) resolve(ctx context.Context, path string) (string, error) {
	return ResolveFor(ctx, s.Roots, path)
}

// ResolveFor resolves path inside roots and, for a key limited to roots
// of its own, inside those.
func ResolveFor(ctx context.Context, roots *guard.Roots, path string) (string, error) {
	p := authn.FromContext(ctx)
	if p == nil || len(p.Roots) == 0 {
		return roots.Resolve(path)
	}
	own, err := guard.NewRoots(p.Roots)
	if err != nil {
		return "", ragd.Forbidden("the roots of key %q cannot be read; ask an operator", p.Name)
	}
	resolved, err := own.Resolve(path)
	if err != nil {
		return "", err
	}
	if !roots.Contains(resolved) {
		return "", ragd.Forbidden("%s is outside the ingest roots", path)
	}
	return resolved, nil
}
