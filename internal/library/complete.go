package library

import (
	"context"
	"strings"

	"ragd"
	"ragd/internal/authn"
)

// NamespacesMatching returns, sorted, up to limit of the namespaces the
// caller may use that start with prefix, and how many match in all: for
// completing a kb_name argument.
func (s *Service) NamespacesMatching(ctx context.Context, prefix string, limit int) ([]string, int, error) {
	all, err := s.Registry.Namespaces(ctx)
	if err != nil {
		return nil, 0, ragd.Unavailable("redis", err)
	}
	p := authn.FromContext(ctx)
	var match []string
	for _, ns := range all {
		if strings.HasPrefix(ns, prefix) && p.Allows(ns) {
			match = append(match, ns)
		}
	}
	return match[:min(len(match), limit)], len(match), nil
}

// DocumentIDsMatching returns, sorted, up to limit ids of the documents of
// namespace kb (default: the default namespace) that start with prefix, and
// whether more match: for completing a document_id argument. A namespace
// the caller may not use is Forbidden.
func (s *Service) DocumentIDsMatching(ctx context.Context, kb, prefix string, limit int) ([]string, bool, error) {
	ns, err := authn.Namespace(ctx, kb)
	if err != nil {
		return nil, false, err
	}
	ids, more, err := s.Registry.IDsWithPrefix(ctx, ns, prefix, limit)
	if err != nil {
		return nil, false, ragd.Unavailable("redis", err)
	}
	return ids, more, nil
}
