package search

import (
	"context"
	"strings"

	"ragd"
)

// NoDocuments tells a search that found nothing because there is nothing
// to find from one that merely matched nothing (a search answers the
// former with a notice): a NotFound error when no
// namespace of namespaces holds a document the caller may see (none was
// indexed there, it was cleared, or it never existed), nil otherwise. A
// namespace whose documents are all hidden from the caller reads exactly
// as an empty one, so the answer tells no key which namespaces others
// use. It costs a registry read per namespace, made only for an empty
// result; when Redis cannot answer it says nothing (nil).
func (s *Service) NoDocuments(ctx context.Context, namespaces []string) error {
	for _, ns := range namespaces {
		n, err := s.Registry.Count(ctx, ns)
		if err != nil {
			return nil
		}
		hidden, err := s.Registry.HiddenIDs(ctx, ns)
		if err != nil {
			return nil
		}
		if n > len(hidden) {
			return nil
		}
	}
	what := "namespace " + namespaces[0] + " holds"
	if len(namespaces) > 1 {
		what = "namespaces " + strings.Join(namespaces, ", ") + " hold"
	}
	return ragd.NotFound("%s no documents you may see: nothing was indexed there, or it was cleared", what)
}
