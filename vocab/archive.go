package vocab

import (
	"context"
	"encoding/json"
	"fmt"
)

// Vocabulary is one document's recorded vocabulary, as an export carries
// it: the version it describes, its chunks, and in how many of them each
// word occurs.
type Vocabulary struct {
	Hash   string
	Chunks int
	DF     map[string]int
}

// Entries returns the recorded vocabulary of each of ids, in one round
// trip; a document with none recorded (or an unreadable entry) is absent.
func (s *Store) Entries(ctx context.Context, namespace string, ids []string) (map[string]Vocabulary, error) {
	out := make(map[string]Vocabulary, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, err := s.rdb.HMGet(ctx, s.key(namespace), ids...).Result()
	if err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	for i, v := range vals {
		raw, ok := v.(string)
		if !ok {
			continue
		}
		var e entry
		if json.Unmarshal([]byte(raw), &e) == nil && e.Hash != "" {
			out[ids[i]] = Vocabulary{Hash: e.Hash, Chunks: e.Chunks, DF: e.DF}
		}
	}
	return out, nil
}

// Restore records a document's vocabulary from its counts, as Learn does
// from its texts: it replaces whatever was recorded, in the totals too.
// Callers hold the document's lock.
func (s *Store) Restore(ctx context.Context, namespace, documentID string, v Vocabulary) error {
	df := v.DF
	if df == nil {
		df = map[string]int{}
	}
	body, err := json.Marshal(entry{Hash: v.Hash, Chunks: v.Chunks, DF: df})
	if err != nil {
		return err
	}
	if err := s.apply(ctx, namespace, documentID, string(body)); err != nil {
		return fmt.Errorf("vocab: restore %s: %w", documentID, err)
	}
	return nil
}
