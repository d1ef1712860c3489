package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// layoutVersion is the key layout this package names. Layout 1 (never
// recorded) spelled a namespace's keys <p>:<kind>:<ns>, without a hash
// tag; layout 2 is <p>:{<ns>}:<kind>.
const layoutVersion = "2"

// renamed are the layout-1 kinds of per-namespace key that hold data and
// are moved to their layout-2 names: the registry, the vocabularies and
// the cache generation counters (kept so a generation never goes back).
// Layout 1's document locks (<p>:lock:<ns>:<id>) and cached results
// (<p>:cache:…) are left to expire by their TTLs: no ragd reads them any
// more, and a lock of a layout-1 worker still running must not be moved
// under the feet of its holder. Sessions, watcher leases, the namespace
// set and the job keys kept their names.
var renamed = map[string]func(keyspace.Keys, string) string{
	"docs":    keyspace.Keys.Documents,
	"current": keyspace.Keys.Current,
	"content": keyspace.Keys.ContentHashes,
	"raw":     keyspace.Keys.RawHashes,
	"order":   keyspace.Keys.Order,
	"epoch":   keyspace.Keys.Epoch,
	"vocab":   keyspace.Keys.Vocabulary,
	"vocabdf": keyspace.Keys.VocabularyTotals,
	"gen":     keyspace.Keys.Generation,
}

// Migrated is what a Migrate did.
type Migrated struct {
	// Moved counts the keys renamed to the current layout.
	Moved int
	// Kept lists the old keys left in place because their new name was
	// taken already (a newer ragd wrote it while an older one still ran);
	// the new key is what ragd reads.
	Kept []string
	// Skipped is set when the layout was current already and nothing was
	// scanned.
	Skipped bool
}

// Migrate moves the keys an older ragd wrote under keys' prefix to the
// current layout, once: it renames each old key whose new name is free,
// then records the layout (Layout), after which later calls return at
// once. It is safe to run from several processes at the same time, and
// to run again after a failure. Run it before anything reads the keys,
// and with no older ragd still writing them: a key the older one writes
// after the move is left where it is.
func Migrate(ctx context.Context, rdb redis.UniversalClient, keys keyspace.Keys) (Migrated, error) {
	layout, err := rdb.Get(ctx, keys.Layout()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return Migrated{}, fmt.Errorf("keyspace: read the layout: %w", err)
	}
	if layout == layoutVersion {
		return Migrated{Skipped: true}, nil
	}
	var (
		mu  sync.Mutex
		out Migrated
	)
	err = scan(ctx, rdb, globEscape(keys.Prefix())+":*", func(ctx context.Context, key string) error {
		to := oldToNew(keys, key)
		if to == "" {
			return nil
		}
		moved, err := move(ctx, rdb, key, to)
		if err != nil {
			return err
		}
		kept := !moved && rdb.Exists(ctx, key).Val() == 1 // not moved by another process either
		mu.Lock()
		defer mu.Unlock()
		if moved {
			out.Moved++
		} else if kept {
			out.Kept = append(out.Kept, key)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("kv: migrate keys under %s: %w", keys.Prefix(), err)
	}
	if err := rdb.Set(ctx, keys.Layout(), layoutVersion, 0).Err(); err != nil {
		return out, fmt.Errorf("keyspace: record the layout: %w", err)
	}
	return out, nil
}

// oldToNew is the current name of a layout-1 key, "" for a key that is
// not one to move.
func oldToNew(keys keyspace.Keys, key string) string {
	rest, ok := strings.CutPrefix(key, keys.Prefix()+":")
	if !ok {
		return ""
	}
	kind, ns, ok := strings.Cut(rest, ":")
	name := renamed[kind]
	if !ok || name == nil || ns == "" || strings.ContainsAny(ns, ":{}") {
		return ""
	}
	return name(keys, ns)
}

// scan calls fn with every key matching match, on every primary of a
// cluster (concurrently, one goroutine per primary). A key may come more
// than once.
func scan(ctx context.Context, rdb redis.UniversalClient, match string, fn func(context.Context, string) error) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return scanNode(ctx, node, match, fn)
		})
	}
	return scanNode(ctx, rdb, match, fn)
}

func scanNode(ctx context.Context, rdb redis.Cmdable, match string, fn func(context.Context, string) error) error {
	iter := rdb.Scan(ctx, 0, match, 1000).Iterator()
	for iter.Next(ctx) {
		if err := fn(ctx, iter.Val()); err != nil {
			return err
		}
	}
	return iter.Err()
}

// move renames from to to unless to exists, reporting whether it did. A
// from gone meanwhile (another process moved it) is no error. Where the
// two names hash to different slots of a cluster, RENAMENX is refused and
// the key is copied instead (copyKey).
func move(ctx context.Context, rdb redis.UniversalClient, from, to string) (bool, error) {
	ok, err := rdb.RenameNX(ctx, from, to).Result()
	switch {
	case err == nil:
		return ok, nil
	case strings.Contains(err.Error(), "no such key"):
		return false, nil
	case strings.HasPrefix(err.Error(), "CROSSSLOT"):
		return copyKey(ctx, rdb, from, to)
	}
	return false, err
}

// copyKey is move across slots: DUMP, then RESTORE under the new name
// with the old key's TTL (refused if the name is taken), then DEL. Two
// processes racing restore it once; both delete the old key.
func copyKey(ctx context.Context, rdb redis.UniversalClient, from, to string) (bool, error) {
	dump, err := rdb.Dump(ctx, from).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ttl, err := rdb.PTTL(ctx, from).Result()
	if err != nil {
		return false, err
	}
	if ttl < 0 {
		ttl = 0 // no expiry (-1), or gone since the dump (-2): keep what was dumped
	}
	err = rdb.Restore(ctx, to, ttl, dump).Err()
	if err != nil && strings.HasPrefix(err.Error(), "BUSYKEY") {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, rdb.Del(ctx, from).Err()
}

// globEscape quotes the glob characters of s for a SCAN MATCH pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
