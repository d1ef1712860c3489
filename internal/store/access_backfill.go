package store

import (
	"context"
	"fmt"
	"strings"

	"ragd"
)

// accessMark ends the description of a collection whose every object
// holds access (ragd.StoredAccess). A collection an earlier ragd made
// lacks it: its objects have no access, which no access filter matches,
// so they would be hidden from all but operators until backfillAccess
// gives them the open value.
const accessMark = "; access=stored"

// backfillAccess gives every object without access, in the chunk and the
// image collections, the open value, then marks the collection so it is
// done once. Each update is an idempotent merge (a replica starting at
// the same time may do the same), and a crash before the mark only means
// the next start looks again.
func (s *Store) backfillAccess(ctx context.Context) error {
	for _, class := range []string{s.class, s.imageClass()} {
		def, err := s.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate: read collection %s: %w", class, err)
		}
		if strings.HasSuffix(def.Description, accessMark) {
			continue
		}
		tenants, err := s.client.Schema().TenantsGetter().WithClassName(class).Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate: list tenants of %s: %w", class, err)
		}
		for _, t := range tenants {
			if err := s.backfillTenant(ctx, class, t.Name); err != nil {
				return fmt.Errorf("weaviate: give the objects of %s/%s their access: %w", class, t.Name, err)
			}
		}
		def.Description += accessMark
		if err := s.client.Schema().ClassUpdater().WithClass(def).Do(ctx); err != nil {
			return fmt.Errorf("weaviate: mark collection %s: %w", class, err)
		}
	}
	return nil
}

// backfillTenant pages through one tenant (properties only) and merges the
// open access into each object that has none.
func (s *Store) backfillTenant(ctx context.Context, class, tenant string) error {
	open := ragd.StoredAccess(nil)
	for after := ""; ; {
		g := s.client.Data().ObjectsGetter().WithClassName(class).WithTenant(tenant).WithLimit(accessPage)
		if after != "" {
			g = g.WithAfter(after)
		}
		objs, err := g.Do(ctx)
		if err != nil {
			if isMissingTenant(err) {
				return nil
			}
			return err
		}
		var without []string
		for _, o := range objs {
			if p, _ := o.Properties.(map[string]any); len(texts(p[propAccess])) == 0 {
				without = append(without, o.ID.String())
			}
		}
		if err := s.mergeAccess(ctx, class, tenant, without, open); err != nil {
			return err
		}
		if len(objs) < accessPage {
			return nil
		}
		after = objs[len(objs)-1].ID.String()
	}
}
