package vocab

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Store keeps per-document term statistics in Redis.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

// New returns a store whose keys start with prefix (the registry's).
func New(rdb redis.UniversalClient, prefix string) *Store {
	return &Store{rdb: rdb, prefix: prefix}
}

// key is the namespace's hash: one field per document.
func (s *Store) key(namespace string) string { return s.prefix + ":vocab:" + namespace }

// entry is one document's statistics, tied to the version they describe.
type entry struct {
	Hash   string         `json:"h"`
	Chunks int            `json:"n"`
	DF     map[string]int `json:"df"` // word → chunks of this document holding it
}

// Learn records the vocabulary of one version of a document: texts are its
// chunks as BM25 sees them (heading trail and body). It replaces whatever
// was recorded for an earlier version.
func (s *Store) Learn(ctx context.Context, namespace, documentID, contentHash string, texts []string) error {
	e := entry{Hash: contentHash, Chunks: len(texts), DF: map[string]int{}}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, w := range Terms(t) {
			if !seen[w] {
				seen[w] = true
				e.DF[w]++
			}
		}
	}
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := s.rdb.HSet(ctx, s.key(namespace), documentID, body).Err(); err != nil {
		return fmt.Errorf("vocab: record %s: %w", documentID, err)
	}
	return nil
}

// Versions reports the current content hash of each document ("" when the
// namespace no longer holds it): the registry's CurrentHashes.
type Versions func(ctx context.Context, namespace string, ids []string) (map[string]string, error)

// Load sums the statistics of the namespace's current documents. Entries of
// documents that are gone are deleted; an entry for another version than
// the current one (a re-index in flight) is skipped and left for its writer
// to replace.
func (s *Store) Load(ctx context.Context, namespace string, current Versions) (*Stats, error) {
	all, err := s.rdb.HGetAll(ctx, s.key(namespace)).Result()
	if err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	hashes, err := current(ctx, namespace, ids)
	if err != nil {
		return nil, err
	}
	chunks, df := 0, map[string]int{}
	var gone []string
	for id, raw := range all {
		var e entry
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			gone = append(gone, id) // unreadable: as good as missing
			continue
		}
		switch hashes[id] {
		case "":
			gone = append(gone, id)
			continue
		case e.Hash:
		default:
			continue
		}
		chunks += e.Chunks
		for w, n := range e.DF {
			df[w] += n
		}
	}
	if len(gone) > 0 {
		if err := s.rdb.HDel(ctx, s.key(namespace), gone...).Err(); err != nil {
			return nil, fmt.Errorf("vocab: %w", err)
		}
	}
	return NewStats(chunks, df), nil
}

// Clear forgets the namespace's statistics.
func (s *Store) Clear(ctx context.Context, namespace string) error {
	return s.rdb.Del(ctx, s.key(namespace)).Err()
}
