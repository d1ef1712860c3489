package library

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"ragd"
	"ragd/internal/authn"
)

// Browse is one page of every document the caller may read.
type Browse struct {
	Documents []ragd.Document
	// Next continues the listing; "" on the last page.
	Next string
}

// browseCursor is where a listing goes on: a namespace and an offset in
// its document order. Opaque to clients (base64 of JSON).
type browseCursor struct {
	Namespace string `json:"n"`
	Offset    int    `json:"o"`
}

// BrowseDocuments pages through the documents of every namespace the
// caller may read: namespaces in name order, each one's documents in list
// order (source, then id), up to limit per page. cursor is "" for the
// first page, else a previous page's Next; one that ragd did not write is
// Invalid. The pages of one namespace behave as ListDocuments' do while
// it changes.
func (s *Service) BrowseDocuments(ctx context.Context, cursor string, limit int) (Browse, error) {
	limit = max(1, min(limit, MaxListLimit))
	var at browseCursor
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || json.Unmarshal(raw, &at) != nil || at.Offset < 0 || !ragd.ValidNamespace(at.Namespace) {
			return Browse{}, ragd.Invalid("cursor", "value_error", "cursor %q is not one this server gave", cursor)
		}
	}
	all, err := s.Registry.Namespaces(ctx)
	if err != nil {
		return Browse{}, ragd.Unavailable("redis", err)
	}
	p := authn.FromContext(ctx)
	var readable []string
	for _, ns := range all { // sorted by name
		if ns >= at.Namespace && p.Allows(ns) {
			readable = append(readable, ns)
		}
	}
	out := Browse{Documents: []ragd.Document{}}
	for i, ns := range readable {
		offset := 0
		if ns == at.Namespace {
			offset = at.Offset
		}
		page, total, err := s.Registry.PageFor(ctx, ns, offset, limit-len(out.Documents))
		if err != nil {
			return Browse{}, ragd.Unavailable("redis", err)
		}
		out.Documents = append(out.Documents, page...)
		if next := min(offset, total) + len(page); next < total {
			// Full, or short because documents went meanwhile: go on here.
			out.Next = encodeCursor(browseCursor{Namespace: ns, Offset: next})
			return out, nil
		}
		if len(out.Documents) == limit {
			if i+1 < len(readable) {
				out.Next = encodeCursor(browseCursor{Namespace: readable[i+1]})
			}
			return out, nil
		}
	}
	return out, nil
}

func encodeCursor(c browseCursor) string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}
