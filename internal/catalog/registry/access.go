package registry

import (
	"context"
	"fmt"
	"strings"

	"ragd"
)

// accessWindow is how many order members PageFor reads at a time.
const accessWindow = 1000

// PageFor is Page for ctx's audience (ragd.AudienceIn): the documents it
// may see, paged in the same order, and how many it may see. An audience
// that sees every
// document, or a namespace with no document it may not see, costs what
// Page costs; otherwise the namespace's order is walked (members only,
// never documents but the page's).
func (r *Registry) PageFor(ctx context.Context, namespace string, offset, limit int) ([]ragd.Document, int, error) {
	aud := ragd.AudienceIn(ctx)
	hidden, err := r.hidden(ctx, namespace, aud)
	if err != nil {
		return nil, 0, err
	}
	if len(hidden) == 0 {
		return r.Page(ctx, namespace, offset, limit)
	}
	var ids []string
	visible := 0
	for start, rebuilt := 0, false; ; start += accessWindow {
		_, members, ok, err := r.orderRange(ctx, namespace, start, accessWindow)
		if err != nil {
			return nil, 0, fmt.Errorf("registry: %w", err)
		}
		if !ok && !rebuilt {
			// The order set lags the documents: Page rebuilds it.
			if _, _, err := r.Page(ctx, namespace, 0, 0); err != nil {
				return nil, 0, err
			}
			rebuilt, start, ids, visible = true, -accessWindow, nil, 0
			continue
		}
		for _, m := range members {
			id := orderID(m)
			if hidden[id] {
				continue
			}
			if visible >= offset && len(ids) < limit {
				ids = append(ids, id)
			}
			visible++
		}
		if len(members) < accessWindow {
			break
		}
	}
	docs, err := r.load(ctx, namespace, ids)
	if err != nil {
		return nil, 0, err
	}
	// A document shared anew since its access was read is left out.
	out := docs[:0]
	for _, d := range docs {
		if aud.Sees(d.Access) {
			out = append(out, d)
		}
	}
	return out, visible, nil
}

// HiddenIDs returns the ids of the namespace's documents ctx's audience
// may not see (none for an audience that sees all, without a round trip).
func (r *Registry) HiddenIDs(ctx context.Context, namespace string) (map[string]bool, error) {
	return r.hidden(ctx, namespace, ragd.AudienceIn(ctx))
}

// MayIndex is ragd.Audience.MayIndex of ctx's audience against the
// document id names (none when missing): whether a request may replace
// it, and change its access as access says. It reads the document
// whatever the audience, as only this rule may: one hidden from the
// caller is refused (Forbidden), not taken for missing.
func (r *Registry) MayIndex(ctx context.Context, namespace, id string, access *[]string) error {
	doc, err := r.GetAny(ctx, namespace, id)
	switch {
	case ragd.KindOf(err) == ragd.KindNotFound:
		doc = nil
	case err != nil:
		return ragd.Unavailable("redis", err)
	}
	return ragd.AudienceIn(ctx).MayIndex(doc, access)
}

// hidden returns the ids of the namespace's documents aud may not see.
func (r *Registry) hidden(ctx context.Context, namespace string, aud ragd.Audience) (map[string]bool, error) {
	if aud.All() {
		return nil, nil
	}
	restricted, err := r.rdb.HGetAll(ctx, r.keys.Access(namespace)).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	hidden := map[string]bool{}
	for id, groups := range restricted {
		if !aud.Sees(splitGroups(groups)) {
			hidden[id] = true
		}
	}
	return hidden, nil
}

// Hidden returns the namespace's documents ctx's audience may not see.
func (r *Registry) Hidden(ctx context.Context, namespace string) ([]ragd.Document, error) {
	hidden, err := r.hidden(ctx, namespace, ragd.AudienceIn(ctx))
	if err != nil || len(hidden) == 0 {
		return nil, err
	}
	ids := make([]string, 0, len(hidden))
	for id := range hidden {
		ids = append(ids, id)
	}
	return r.load(ctx, namespace, ids)
}

// joinGroups is a restricted document's access as {ns}:access holds it:
// its groups joined by commas, which no group name holds
// (ragd.CheckGroup); splitGroups reads it back.
func joinGroups(access []string) string { return strings.Join(access, ",") }

func splitGroups(s string) []string { return strings.Split(s, ",") }
