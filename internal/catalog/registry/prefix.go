package registry

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"ragd"
)

// prefixScanCount is how many documents one HSCAN round examines.
const prefixScanCount = 1000

// IDsWithPrefix returns up to limit ids of a namespace's documents that
// start with prefix, sorted, and whether more match: Redis matches the ids
// while it scans (HSCAN MATCH), so only matching documents cross the
// network; the documents ctx's audience may not see are left out. Document ids are lowercase hex; a prefix that could not start
// one matches nothing, and never reaches Redis as a glob pattern.
func (r *Registry) IDsWithPrefix(ctx context.Context, namespace, prefix string, limit int) ([]string, bool, error) {
	if strings.Trim(prefix, "0123456789abcdef") != "" || limit <= 0 {
		return nil, false, nil
	}
	hidden, err := r.hidden(ctx, namespace, ragd.AudienceIn(ctx))
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	var cursor uint64
	for {
		kv, next, err := r.rdb.HScan(ctx, r.keys.Documents(namespace), cursor, prefix+"*", prefixScanCount).Result()
		if err != nil {
			return nil, false, fmt.Errorf("registry: %w", err)
		}
		for i := 0; i < len(kv); i += 2 {
			if !hidden[kv[i]] {
				seen[kv[i]] = true // HSCAN may yield a field twice
			}
		}
		if cursor = next; cursor == 0 || len(seen) > limit {
			break
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) > limit {
		return ids[:limit], true, nil
	}
	return ids, false, nil
}
