package library

import (
	"context"

	"ragd/wire"

	"ragd"
	"ragd/internal/authn"
)

// Limits of a document list page.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// ListRequest is wire.ListRequest, the contract REST, MCP and the client share.
type ListRequest = wire.ListRequest

// DocumentList is wire.DocumentList, the contract REST, MCP and the client share.
type DocumentList = wire.DocumentList

// ListDocuments returns a page of a namespace's documents. The order is
// fixed (source, then id; ids are unique), so pages neither overlap nor skip
// documents while the namespace does not change.
func (s *Service) ListDocuments(ctx context.Context, req ListRequest) (DocumentList, error) {
	limit, offset, err := pageOf(req.Limit, req.Offset)
	if err != nil {
		return DocumentList{}, err
	}
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return DocumentList{}, err
	}
	page, total, err := s.Registry.PageFor(ctx, ns, offset, limit)
	if err != nil {
		return DocumentList{}, ragd.Unavailable("redis", err)
	}
	if page == nil {
		page = []ragd.Document{} // [], not null
	}
	list := DocumentList{KBName: ns, Documents: page, Count: len(page), Total: total}
	// A document deleted while the page was read is missing from it and has
	// moved the rest up by one, so the next page starts right after this one.
	if next := min(offset, total) + len(page); next < total {
		list.NextOffset = &next
	}
	return list, nil
}

// pageOf validates limit and offset, defaulting them when absent. They are
// query parameters of GET /documents, hence the loc.
func pageOf(limit, offset *int) (int, int, error) {
	l, o := DefaultListLimit, 0
	if limit != nil {
		if l = *limit; l < 1 || l > MaxListLimit {
			return 0, 0, invalidQuery("limit", "limit must be between 1 and %d, not %d", MaxListLimit, l)
		}
	}
	if offset != nil {
		if o = *offset; o < 0 {
			return 0, 0, invalidQuery("offset", "offset must be 0 or more, not %d", o)
		}
	}
	return l, o, nil
}

// invalidQuery is ragd.Invalid for a query parameter.
func invalidQuery(field, format string, args ...any) error {
	e := ragd.Invalid(field, "value_error", format, args...)
	e.Fields[0].Loc = []string{"query", field}
	return e
}

// Document returns one document the caller may see; one it may not is not
// found, exactly as a missing one. With kb empty every namespace is
// searched: document ids are unique across namespaces.
func (s *Service) Document(ctx context.Context, kb, id string) (*ragd.Document, error) {
	namespaces := []string{kb}
	if kb == "" {
		var err error
		if namespaces, err = s.Registry.Namespaces(ctx); err != nil {
			return nil, ragd.Unavailable("redis", err)
		}
	} else if _, err := authn.Namespace(ctx, kb); err != nil {
		return nil, err
	}
	for _, ns := range namespaces {
		if kb == "" && !authn.FromContext(ctx).Allows(ns) {
			continue // not the caller's to see
		}
		doc, err := s.Registry.Get(ctx, ns, id) // hidden: answered as missing
		if err == nil {
			return doc, nil
		}
		if ragd.KindOf(err) != ragd.KindNotFound {
			return nil, ragd.Unavailable("redis", err)
		}
	}
	if kb == "" {
		return nil, ragd.NotFound("document %s not found", id)
	}
	return nil, ragd.NotFound("document %s not found in namespace %s", id, kb)
}

// Deleted is wire.Deleted, the contract REST, MCP and the client share.
type Deleted = wire.Deleted

// DeleteDocument removes a document the caller may see (versions.Keeper.Remove).
func (s *Service) DeleteDocument(ctx context.Context, kb, id string) (Deleted, error) {
	doc, err := s.Document(ctx, kb, id)
	if err != nil {
		return Deleted{}, err
	}
	n, err := s.Versions.Remove(ctx, doc.Namespace, id)
	if err != nil {
		return Deleted{}, err
	}
	return Deleted{Status: "deleted", DocumentID: id, KBName: doc.Namespace, ChunksDeleted: n}, nil
}

// Cleared is wire.Cleared, the contract REST, MCP and the client share.
type Cleared = wire.Cleared

// Clear empties one namespace (for a principal that sees every document
// in it), or every namespace when all is set (for an operator).
func (s *Service) Clear(ctx context.Context, kb string, all bool) (Cleared, error) {
	var namespaces []string
	switch {
	case all && kb != "":
		return Cleared{}, ragd.Invalid("kb_name", "value_error", "give kb_name or all, not both")
	case all:
		if err := authn.RequireOperator(ctx, "clearing every namespace"); err != nil {
			return Cleared{}, err
		}
		known, err := s.Registry.Namespaces(ctx)
		if err != nil {
			return Cleared{}, ragd.Unavailable("redis", err)
		}
		tenants, err := s.Store.Namespaces(ctx)
		if err != nil {
			return Cleared{}, err
		}
		namespaces = union(known, tenants)
	case kb == "":
		return Cleared{}, ragd.Invalid("kb_name", "missing", "name the namespace to clear with kb_name, or clear every namespace with all=true&confirm=true")
	default:
		ns, err := authn.Namespace(ctx, kb)
		if err != nil {
			return Cleared{}, err
		}
		// It deletes every document, those hidden from the caller too.
		if err := authn.RequireEveryDocument(ctx, "clearing a namespace"); err != nil {
			return Cleared{}, err
		}
		namespaces = []string{ns}
	}
	for _, ns := range namespaces {
		if err := s.Versions.Clear(ctx, ns); err != nil {
			return Cleared{}, err
		}
	}
	if namespaces == nil {
		namespaces = []string{}
	}
	return Cleared{Status: "cleared", Namespaces: namespaces}, nil
}
