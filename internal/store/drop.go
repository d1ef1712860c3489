package store

import (
	"context"
	"fmt"
)

// Drop deletes the collection and its pictures' collection, with every
// tenant: what an embedder switch does to the collection it left (or, when
// cancelled, to the one it was building). A collection already gone is no
// error.
func (s *Store) Drop(ctx context.Context) error {
	for _, class := range []string{s.class, s.imageClass()} {
		exists, err := s.client.Schema().ClassExistenceChecker().WithClassName(class).Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate: check collection %s: %w", class, err)
		}
		if !exists {
			continue
		}
		if err := s.client.Schema().ClassDeleter().WithClassName(class).Do(ctx); err != nil {
			return fmt.Errorf("weaviate: drop collection %s: %w", class, err)
		}
	}
	return nil
}

// Drop deletes the collections through the first node that answers.
func (c *Cluster) Drop(ctx context.Context) error {
	return c.run(ctx, func(s *Store) error { return s.Drop(ctx) })
}
