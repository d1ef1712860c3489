package registry

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// SourceRef is a document named by its id and source.
type SourceRef struct {
	DocumentID string `json:"document_id"`
	Source     string `json:"source"`
}

// BySourcePrefix lists the namespace's documents whose source starts with
// prefix, in source order, from the order set alone (a range by prefix: no
// document is read), leaving out those ctx's audience (ragd.AudienceIn)
// may not see. A namespace written before the order set existed has it
// rebuilt first.
func (r *Registry) BySourcePrefix(ctx context.Context, namespace, prefix string) ([]SourceRef, error) {
	for attempt := 0; ; attempt++ {
		_, _, ok, err := r.orderRange(ctx, namespace, 0, 0)
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		if ok || attempt == rebuildAttempts {
			break
		}
		if _, err := r.rebuildOrder(ctx, namespace); err != nil && err != redis.TxFailedErr {
			return nil, fmt.Errorf("registry: rebuild order of %s: %w", namespace, err)
		}
	}
	// Members are "source\x00id": every member of a source with the prefix
	// sorts between "[prefix" and "[prefix\xff".
	members, err := r.rdb.ZRangeByLex(ctx, r.keys.Order(namespace), &redis.ZRangeBy{
		Min: "[" + prefix, Max: "[" + prefix + "\xff"}).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	hidden, err := r.hidden(ctx, namespace, ragd.AudienceIn(ctx))
	if err != nil {
		return nil, err
	}
	refs := make([]SourceRef, 0, len(members))
	for _, m := range members {
		if id := orderID(m); !hidden[id] {
			refs = append(refs, SourceRef{DocumentID: id, Source: m[:len(m)-len(id)-1]})
		}
	}
	return refs, nil
}

// GetMany returns the recorded documents of ids, keyed by id, in one round
// trip; ids without a document are absent, and so are those of documents
// ctx's audience (ragd.AudienceIn) may not see, as Get.
func (r *Registry) GetMany(ctx context.Context, namespace string, ids []string) (map[string]ragd.Document, error) {
	docs, err := r.load(ctx, namespace, ids)
	if err != nil {
		return nil, err
	}
	aud := ragd.AudienceIn(ctx)
	out := make(map[string]ragd.Document, len(docs))
	for _, d := range docs {
		if aud.Sees(d.Access) {
			out[d.ID] = d
		}
	}
	return out, nil
}

// RecordFileStat records the size and modification time of a document's
// file without making a new version: a file touched but unchanged, so the
// next sync skips it unread. Versions, dedup entries and the epoch stay as
// they are (searches are not affected). Callers hold the document's lock.
func (r *Registry) RecordFileStat(ctx context.Context, d ragd.Document) error {
	body, err := encode(d)
	if err != nil {
		return err
	}
	if err := r.rdb.HSet(ctx, r.keys.Documents(d.Namespace), d.ID, body).Err(); err != nil {
		return fmt.Errorf("registry: record file of %s: %w", d.ID, err)
	}
	return nil
}
