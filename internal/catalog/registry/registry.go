// Package registry records, in Redis, which documents each namespace holds and
// which version of each is current. Search uses the current version to hide
// chunks of a version that is still being written or already replaced.
package registry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/platform/keyspace"
)

// Registry is the document registry. It is safe for concurrent use.
type Registry struct {
	rdb     redis.UniversalClient
	keys    keyspace.Keys
	current *currentCache
	epochs  *epochs
}

// New returns a registry keeping its keys where keys names them: per
// namespace its documents, current versions, dedup hashes, order and
// epoch, all under the namespace's hash tag so that one transaction may
// write them together, and the set of namespaces apart.
func New(rdb redis.UniversalClient, keys keyspace.Keys) *Registry {
	return &Registry{rdb: rdb, keys: keys, current: newCurrentCache(), epochs: newEpochs()}
}

// Get returns a document, or a ragd NotFound error. It applies ctx's
// audience (ragd.AudienceIn) itself: a document the audience may not see
// is not found, exactly as a missing one, so no caller filters (a context
// without an audience is ragd's own and sees every document).
func (r *Registry) Get(ctx context.Context, namespace, id string) (*ragd.Document, error) {
	d, err := r.GetAny(ctx, namespace, id)
	if err != nil || ragd.AudienceIn(ctx).Sees(d.Access) {
		return d, err
	}
	return nil, ragd.NotFound("document %s not found in namespace %s", id, namespace)
}

// GetAny is Get whatever ctx's audience: the system's read, for the
// bookkeeping of versions and jobs (the worker, an import, an embedder
// switch, package versions) and for the rule that must tell a document
// hidden from a caller from a missing one (MayIndex). A read for a user
// calls Get; TestGetAnyOnlyForTheSystem (in the ragd root) names the
// packages that may call GetAny.
func (r *Registry) GetAny(ctx context.Context, namespace, id string) (*ragd.Document, error) {
	return document(r.rdb.HGet(ctx, r.keys.Documents(namespace), id), namespace, id)
}

// document decodes a document read with HGET.
func document(cmd *redis.StringCmd, namespace, id string) (*ragd.Document, error) {
	raw, err := cmd.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ragd.NotFound("document %s not found in namespace %s", id, namespace)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	d, err := decode(namespace, id, raw)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// ByContentHash returns the id of the namespace's document with this
// normalized-content hash, or "" if none.
func (r *Registry) ByContentHash(ctx context.Context, namespace, hash string) (string, error) {
	return r.lookup(ctx, r.keys.ContentHashes(namespace), hash)
}

// ByRawHash returns the id of the namespace's document loaded from bytes with
// this hash, or "" if none.
func (r *Registry) ByRawHash(ctx context.Context, namespace, hash string) (string, error) {
	return r.lookup(ctx, r.keys.RawHashes(namespace), hash)
}

func (r *Registry) lookup(ctx context.Context, key, hash string) (string, error) {
	if hash == "" {
		return "", nil
	}
	id, err := r.rdb.HGet(ctx, key, hash).Result()
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
// lock, so no other writer races between the read and the transaction; a
// job that may outlive its lock (a worker) uses PutHeld.
func (r *Registry) Put(ctx context.Context, d ragd.Document) error {
	return r.put(ctx, d, func(fn func(redis.Pipeliner) error) error {
		_, err := r.rdb.TxPipelined(ctx, fn)
		return err
	})
}

// PutHeld is Put by the holder of l, only while the lock is still l's: the
// lock is checked and watched in the same transaction as the write, so a
// job that lost its lock (ErrLockLost) never switches the version over a
// job that took it since.
func (r *Registry) PutHeld(ctx context.Context, l *Lease, d ragd.Document) error {
	return r.put(ctx, d, func(fn func(redis.Pipeliner) error) error {
		err := r.rdb.Watch(ctx, func(tx *redis.Tx) error {
			token, err := tx.Get(ctx, l.l.Key()).Result()
			if errors.Is(err, redis.Nil) || err == nil && token != l.l.Owner() {
				return ErrLockLost
			}
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, fn)
			return err
		}, l.l.Key())
		if errors.Is(err, redis.TxFailedErr) {
			return ErrLockLost // the lock changed between the check and the write
		}
		return err
	})
}

// put writes d through transact, which runs the transaction's commands.
//
// The set of namespaces has no namespace's hash tag, so it is written
// outside the transaction: before it, in the round trip that reads the
// previous version, so a crash after the transaction cannot leave the
// documents unlisted (a retried job that finds its version current writes
// nothing), and after it, so a ClearNamespace in between (which unlists
// before it deletes) cannot either.
func (r *Registry) put(ctx context.Context, d ragd.Document, transact func(func(redis.Pipeliner) error) error) error {
	ns := d.Namespace
	var read *redis.StringCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		read = p.HGet(ctx, r.keys.Documents(ns), d.ID)
		p.SAdd(ctx, r.keys.Namespaces(), ns)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("registry: %w", err)
	}
	prev, err := document(read, ns, d.ID)
	if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
		return err
	}
	body, err := encode(d)
	if err != nil {
		return err
	}
	err = transact(func(p redis.Pipeliner) error {
		r.write(ctx, p, d, prev, body)
		p.Incr(ctx, r.keys.Epoch(ns))
		return nil
	})
	r.moved(ctx, ns)
	if err == nil {
		err = r.rdb.SAdd(ctx, r.keys.Namespaces(), ns).Err()
	}
	if err != nil {
		return fmt.Errorf("registry: record document %s: %w", d.ID, err)
	}
	return nil
}

// write queues the commands that make d, encoded as body, current in
// place of prev (nil when there is none), all but the epoch's move.
func (r *Registry) write(ctx context.Context, p redis.Pipeliner, d ragd.Document, prev *ragd.Document, body []byte) {
	ns := d.Namespace
	if prev != nil {
		r.unindex(ctx, p, prev)
		if prev.Source != d.Source {
			// Ids derive from the source, so only a caller bypassing
			// ragd.DocumentID gets here; the old position must go all the same.
			p.ZRem(ctx, r.keys.Order(ns), orderMember(*prev))
		}
	}
	p.HSet(ctx, r.keys.Documents(ns), d.ID, body)
	if len(d.Access) > 0 {
		p.HSet(ctx, r.keys.Access(ns), d.ID, joinGroups(d.Access))
	} else if prev != nil && len(prev.Access) > 0 {
		p.HDel(ctx, r.keys.Access(ns), d.ID)
	}
	p.ZAdd(ctx, r.keys.Order(ns), redis.Z{Member: orderMember(d)})
	p.HSet(ctx, r.keys.Current(ns), d.ID, d.ContentHash)
	p.HSet(ctx, r.keys.ContentHashes(ns), d.ContentHash, d.ID)
	if d.RawHash != "" {
		p.HSet(ctx, r.keys.RawHashes(ns), d.RawHash, d.ID)
	}
}

// unindex removes prev's dedup entries, unless another document owns them now.
func (r *Registry) unindex(ctx context.Context, p redis.Pipeliner, prev *ragd.Document) {
	ns := prev.Namespace
	if owner, _ := r.ByContentHash(ctx, ns, prev.ContentHash); owner == prev.ID {
		p.HDel(ctx, r.keys.ContentHashes(ns), prev.ContentHash)
	}
	if owner, _ := r.ByRawHash(ctx, ns, prev.RawHash); owner == prev.ID && prev.RawHash != "" {
		p.HDel(ctx, r.keys.RawHashes(ns), prev.RawHash)
	}
}

// Delete forgets a document. Deleting an unknown document is not an error.
func (r *Registry) Delete(ctx context.Context, namespace, id string) error {
	prev, err := r.GetAny(ctx, namespace, id)
	if ragd.KindOf(err) == ragd.KindNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		r.unindex(ctx, p, prev)
		p.HDel(ctx, r.keys.Documents(namespace), id)
		p.HDel(ctx, r.keys.Access(namespace), id)
		p.ZRem(ctx, r.keys.Order(namespace), orderMember(*prev))
		p.HDel(ctx, r.keys.Current(namespace), id)
		p.Incr(ctx, r.keys.Epoch(namespace))
		return nil
	})
	r.moved(ctx, namespace)
	return err
}

// ClearNamespace forgets every document of a namespace. The namespace
// leaves the set of namespaces first (see put for why in that order).
func (r *Registry) ClearNamespace(ctx context.Context, namespace string) error {
	if err := r.rdb.SRem(ctx, r.keys.Namespaces(), namespace).Err(); err != nil {
		return err
	}
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		// The namespace's vocabulary is package vocab's to clear
		// (versions.Keeper.Clear does).
		p.Del(ctx, r.keys.Documents(namespace), r.keys.Order(namespace), r.keys.Current(namespace),
			r.keys.ContentHashes(namespace), r.keys.RawHashes(namespace), r.keys.Access(namespace))
		// The epoch moves on rather than restarting, so versions read
		// before the clear never pass for the namespace refilled.
		p.Incr(ctx, r.keys.Epoch(namespace))
		return nil
	})
	r.moved(ctx, namespace)
	return err
}

// CurrentHashes returns, for each id, the content hash of its current
// version ("" for a document with no recorded version), in one round trip.
func (r *Registry) CurrentHashes(ctx context.Context, namespace string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, err := r.rdb.HMGet(ctx, r.keys.Current(namespace), ids...).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	for i, v := range vals {
		s, _ := v.(string)
		out[ids[i]] = s
	}
	return out, nil
}

// orderMember is a document's member of its namespace's order set: every
// score is 0, so Redis orders members bytewise, which is by source, then id (a
// total order: ids are unique). Ids are hex, so the last NUL splits the two.
func orderMember(d ragd.Document) string { return d.Source + "\x00" + d.ID }

func orderID(member string) string { return member[strings.LastIndexByte(member, 0)+1:] }

// rebuildAttempts bounds how often Page rebuilds a namespace's order set that
// concurrent writes keep invalidating before it pages the documents it read.
const rebuildAttempts = 3

// Page returns up to limit of a namespace's documents from offset on, ordered
// by source, then id, and how many documents the namespace holds. It reads
// O(limit) documents, not the namespace. A document deleted while the page
// is read is left out, so a page may be short.
func (r *Registry) Page(ctx context.Context, namespace string, offset, limit int) ([]ragd.Document, int, error) {
	if offset < 0 || limit < 0 {
		// Redis reads negative indexes from the end.
		return nil, 0, fmt.Errorf("registry: page offset %d, limit %d", offset, limit)
	}
	var all map[string]string
	for attempt := 0; ; attempt++ {
		total, members, ok, err := r.orderRange(ctx, namespace, offset, limit)
		if err != nil {
			return nil, 0, fmt.Errorf("registry: %w", err)
		}
		if ok {
			ids := make([]string, len(members))
			for i, m := range members {
				ids[i] = orderID(m)
			}
			docs, err := r.load(ctx, namespace, ids)
			return docs, total, err
		}
		if attempt == rebuildAttempts {
			// Writes keep winning the race: page what was read, as
			// before the order set existed. A later page rebuilds it.
			return pageAll(namespace, all, offset, limit)
		}
		all, err = r.rebuildOrder(ctx, namespace)
		if err != nil && !errors.Is(err, redis.TxFailedErr) {
			return nil, 0, fmt.Errorf("registry: rebuild order of %s: %w", namespace, err)
		}
	}
}

// orderRange reads, in one transaction so the counts agree, the namespace's
// size and the members of the page. ok is false when the order set does not
// hold every document: the namespace was written before it existed (Put and
// Delete keep the two in step once it does).
func (r *Registry) orderRange(ctx context.Context, namespace string, offset, limit int) (total int, members []string, ok bool, err error) {
	order := r.keys.Order(namespace)
	var card, hlen *redis.IntCmd
	var rng *redis.StringSliceCmd
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		card = p.ZCard(ctx, order)
		hlen = p.HLen(ctx, r.keys.Documents(namespace))
		if limit > 0 {
			// Saturate: offset+limit may overflow, and a negative stop
			// would count from the end.
			stop := int64(math.MaxInt64)
			if int64(offset) <= math.MaxInt64-int64(limit) {
				stop = int64(offset) + int64(limit) - 1
			}
			rng = p.ZRange(ctx, order, int64(offset), stop)
		}
		return nil
	})
	if err != nil {
		return 0, nil, false, err
	}
	if card.Val() != hlen.Val() {
		return 0, nil, false, nil
	}
	if rng != nil {
		members = rng.Val()
	}
	return int(card.Val()), members, true, nil
}

// load returns the documents of ids, in order, leaving out those deleted
// since the ids were read.
func (r *Registry) load(ctx context.Context, namespace string, ids []string) ([]ragd.Document, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	vals, err := r.rdb.HMGet(ctx, r.keys.Documents(namespace), ids...).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	docs := make([]ragd.Document, 0, len(ids))
	for i, v := range vals {
		raw, ok := v.(string)
		if !ok {
			continue
		}
		d, err := decode(namespace, ids[i], []byte(raw))
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// rebuildOrder rewrites the namespace's order set from its documents, unless
// a write changes them meanwhile (redis.TxFailedErr). It returns the
// documents it read (id → JSON).
func (r *Registry) rebuildOrder(ctx context.Context, namespace string) (map[string]string, error) {
	docsKey, order := r.keys.Documents(namespace), r.keys.Order(namespace)
	var all map[string]string
	err := r.rdb.Watch(ctx, func(tx *redis.Tx) error {
		var err error
		if all, err = tx.HGetAll(ctx, docsKey).Result(); err != nil {
			return err
		}
		members := make([]redis.Z, 0, len(all))
		for id, raw := range all {
			source, err := sourceOf([]byte(raw))
			if err != nil {
				return fmt.Errorf("document %s: %w", id, err)
			}
			members = append(members, redis.Z{Member: orderMember(ragd.Document{Source: source, ID: id})})
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, order)
			for chunk := range slices.Chunk(members, 1000) { // bounded commands
				p.ZAdd(ctx, order, chunk...)
			}
			return nil
		})
		return err
	}, docsKey) // Put, Delete and ClearNamespace all write it
	return all, err
}

// pageAll pages a namespace's documents read as a whole (id → entry).
func pageAll(namespace string, all map[string]string, offset, limit int) ([]ragd.Document, int, error) {
	docs := make([]ragd.Document, 0, len(all))
	for id, raw := range all {
		d, err := decode(namespace, id, []byte(raw))
		if err != nil {
			return nil, 0, err
		}
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b ragd.Document) int { return strings.Compare(orderMember(a), orderMember(b)) })
	start := min(offset, len(docs))
	return docs[start : start+min(limit, len(docs)-start)], len(docs), nil
}

// Count returns how many documents a namespace holds, without reading them.
func (r *Registry) Count(ctx context.Context, namespace string) (int, error) {
	n, err := r.rdb.HLen(ctx, r.keys.Documents(namespace)).Result()
	if err != nil {
		return 0, fmt.Errorf("registry: %w", err)
	}
	return int(n), nil
}

// Chunks returns how many chunks a namespace's current versions hold, by
// their recorded counts, in one round trip: a version still being written
// (stored but not yet made current) is not counted, nor is the previous
// version a commit has yet to sweep.
func (r *Registry) Chunks(ctx context.Context, namespace string) (int, error) {
	all, err := r.rdb.HGetAll(ctx, r.keys.Documents(namespace)).Result()
	if err != nil {
		return 0, fmt.Errorf("registry: %w", err)
	}
	n := 0
	for id, raw := range all {
		d, err := decode(namespace, id, []byte(raw))
		if err != nil {
			return 0, err
		}
		n += d.Chunks
	}
	return n, nil
}

// Namespaces lists the namespaces that have held documents.
func (r *Registry) Namespaces(ctx context.Context) ([]string, error) {
	ns, err := r.rdb.SMembers(ctx, r.keys.Namespaces()).Result()
	sort.Strings(ns)
	return ns, err
}
