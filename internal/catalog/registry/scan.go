package registry

import (
	"context"
	"fmt"

	"ragd"
)

// Scan returns a batch of about count of a namespace's documents from
// cursor (0 to start) and the cursor to go on from (0 once done): Redis
// HSCAN, which yields every document present for the whole scan at least
// once, however the namespace changes meanwhile, and holds one batch at a
// time. A document may come twice.
func (r *Registry) Scan(ctx context.Context, namespace string, cursor uint64, count int64) ([]ragd.Document, uint64, error) {
	kv, next, err := r.rdb.HScan(ctx, r.keys.Documents(namespace), cursor, "", count).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	docs := make([]ragd.Document, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		d, err := decode(namespace, kv[i], []byte(kv[i+1]))
		if err != nil {
			return nil, 0, err
		}
		docs = append(docs, d)
	}
	return docs, next, nil
}
