// Package registry records, in Redis, which documents each namespace holds and
// which version of each is current. Search uses the current version to hide
// chunks of a version that is still being written or already replaced.
package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// Registry is the document registry. It is safe for concurrent use.
type Registry struct {
	rdb    redis.UniversalClient
	prefix string
}

// New returns a registry whose keys start with prefix.
func New(rdb redis.UniversalClient, prefix string) *Registry {
	return &Registry{rdb: rdb, prefix: prefix}
}

// Keys, per namespace: docs (hash id → Document JSON), current (hash id →
// content hash), content and raw (hash → document id, for dedup).
func (r *Registry) key(kind, namespace string) string {
	return r.prefix + ":" + kind + ":" + namespace
}

func (r *Registry) namespacesKey() string { return r.prefix + ":namespaces" }

// Get returns a document, or a ragd NotFound error.
func (r *Registry) Get(ctx context.Context, namespace, id string) (*ragd.Document, error) {
	raw, err := r.rdb.HGet(ctx, r.key("docs", namespace), id).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ragd.NotFound("document %s not found in namespace %s", id, namespace)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	var d ragd.Document
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("registry: document %s: %w", id, err)
	}
	return &d, nil
}

// ByContentHash returns the id of the namespace's document with this
// normalized-content hash, or "" if none.
func (r *Registry) ByContentHash(ctx context.Context, namespace, hash string) (string, error) {
	return r.lookup(ctx, "content", namespace, hash)
}

// ByRawHash returns the id of the namespace's document loaded from bytes with
// this hash, or "" if none.
func (r *Registry) ByRawHash(ctx context.Context, namespace, hash string) (string, error) {
	return r.lookup(ctx, "raw", namespace, hash)
}

func (r *Registry) lookup(ctx context.Context, kind, namespace, hash string) (string, error) {
	if hash == "" {
		return "", nil
	}
	id, err := r.rdb.HGet(ctx, r.key(kind, namespace), hash).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("registry: %w", err)
	}
	return id, nil
}

// Put records d as the current version of its document, in one transaction,
// replacing the previous version's dedup entries. Callers hold the document's
// lock, so no other writer races between the read and the transaction.
func (r *Registry) Put(ctx context.Context, d ragd.Document) error {
	prev, err := r.Get(ctx, d.Namespace, d.ID)
	if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
		return err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	ns := d.Namespace
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if prev != nil {
			r.unindex(ctx, p, prev)
		}
		p.HSet(ctx, r.key("docs", ns), d.ID, body)
		p.HSet(ctx, r.key("current", ns), d.ID, d.ContentHash)
		p.HSet(ctx, r.key("content", ns), d.ContentHash, d.ID)
		if d.RawHash != "" {
			p.HSet(ctx, r.key("raw", ns), d.RawHash, d.ID)
		}
		p.SAdd(ctx, r.namespacesKey(), ns)
		return nil
	})
	if err != nil {
		return fmt.Errorf("registry: record document %s: %w", d.ID, err)
	}
	return nil
}

// unindex removes prev's dedup entries, unless another document owns them now.
func (r *Registry) unindex(ctx context.Context, p redis.Pipeliner, prev *ragd.Document) {
	ns := prev.Namespace
	if owner, _ := r.ByContentHash(ctx, ns, prev.ContentHash); owner == prev.ID {
		p.HDel(ctx, r.key("content", ns), prev.ContentHash)
	}
	if owner, _ := r.ByRawHash(ctx, ns, prev.RawHash); owner == prev.ID && prev.RawHash != "" {
		p.HDel(ctx, r.key("raw", ns), prev.RawHash)
	}
}

// Delete forgets a document. Deleting an unknown document is not an error.
func (r *Registry) Delete(ctx context.Context, namespace, id string) error {
	prev, err := r.Get(ctx, namespace, id)
	if ragd.KindOf(err) == ragd.KindNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		r.unindex(ctx, p, prev)
		p.HDel(ctx, r.key("docs", namespace), id)
		p.HDel(ctx, r.key("current", namespace), id)
		return nil
	})
	return err
}

// ClearNamespace forgets every document of a namespace.
func (r *Registry) ClearNamespace(ctx context.Context, namespace string) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		// vocab, vocabdf: the namespace's learned vocabulary and its totals
		// (package vocab) go with it.
		for _, kind := range []string{"docs", "current", "content", "raw", "vocab", "vocabdf"} {
			p.Del(ctx, r.key(kind, namespace))
		}
		p.SRem(ctx, r.namespacesKey(), namespace)
		return nil
	})
	return err
}

// CurrentHashes returns, for each id, the content hash of its current
// version ("" for a document with no recorded version), in one round trip.
func (r *Registry) CurrentHashes(ctx context.Context, namespace string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, err := r.rdb.HMGet(ctx, r.key("current", namespace), ids...).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	for i, v := range vals {
		s, _ := v.(string)
		out[ids[i]] = s
	}
	return out, nil
}

// List returns a namespace's documents, sorted by source, then id: a total
// order (ids are unique), so callers can page through it.
func (r *Registry) List(ctx context.Context, namespace string) ([]ragd.Document, error) {
	m, err := r.rdb.HGetAll(ctx, r.key("docs", namespace)).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	docs := make([]ragd.Document, 0, len(m))
	for id, raw := range m {
		var d ragd.Document
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			return nil, fmt.Errorf("registry: document %s: %w", id, err)
		}
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b ragd.Document) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
	})
	return docs, nil
}

// Count returns how many documents a namespace holds, without reading them.
func (r *Registry) Count(ctx context.Context, namespace string) (int, error) {
	n, err := r.rdb.HLen(ctx, r.key("docs", namespace)).Result()
	if err != nil {
		return 0, fmt.Errorf("registry: %w", err)
	}
	return int(n), nil
}

// Namespaces lists the namespaces that have held documents.
func (r *Registry) Namespaces(ctx context.Context) ([]string, error) {
	ns, err := r.rdb.SMembers(ctx, r.namespacesKey()).Result()
	sort.Strings(ns)
	return ns, err
}
