// Package lease is ragd's one kind of Redis lock: a key held by one owner
// for a time to live, which only its owner renews or gives up. A
// document's write lock (registry) and a watched directory's lease
// (watch) are both one; if the owner dies the key expires and another may
// take it.
package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// renewScript extends the lease only for its owner.
var renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0`)

// releaseScript deletes the lease only for its owner.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1]) end
return 0`)

// holder begins each owner token: the process holding it, "host:pid:", so
// an operator can tell which process holds a lock.
var holder = func() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:", host, os.Getpid())
}()

// Lease is one owner's claim on a key.
type Lease struct {
	rdb   redis.UniversalClient
	key   string
	owner string
	ttl   time.Duration
}

// New returns a lease on key, held for ttl at a time, with an owner token
// of its own.
func New(rdb redis.UniversalClient, key string, ttl time.Duration) *Lease {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return &Lease{rdb: rdb, key: key, owner: holder + hex.EncodeToString(b[:]), ttl: ttl}
}

// Key is the Redis key the lease holds.
func (l *Lease) Key() string { return l.key }

// Owner is the token the key holds while the lease is this one's.
func (l *Lease) Owner() string { return l.owner }

// Acquire takes the lease if it is free and reports whether it did.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	return l.rdb.SetNX(ctx, l.key, l.owner, l.ttl).Result()
}

// Renew extends a held lease; false means it was lost (expired and taken,
// or gone).
func (l *Lease) Renew(ctx context.Context) (bool, error) {
	n, err := renewScript.Run(ctx, l.rdb, []string{l.key}, l.owner, l.ttl.Milliseconds()).Int()
	return n == 1, err
}

// Release gives a held lease up at once, for the next owner to take; a
// lease no longer held is left alone.
func (l *Lease) Release(ctx context.Context) error {
	return releaseScript.Run(ctx, l.rdb, []string{l.key}, l.owner).Err()
}
