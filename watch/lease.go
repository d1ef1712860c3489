package watch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lease is a Redis lock with an owner and an expiry: of all the ragd
// processes configured to watch a directory, only the holder watches it,
// and when it dies the lease expires and another takes over.
type Lease struct {
	rdb   redis.UniversalClient
	key   string
	owner string
	ttl   time.Duration
}

// NewLease returns a lease on key held for ttl at a time.
func NewLease(rdb redis.UniversalClient, key string, ttl time.Duration) *Lease {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &Lease{rdb: rdb, key: key, owner: hex.EncodeToString(b), ttl: ttl}
}

// renewScript extends the lease only for its owner.
var renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0`)

// releaseScript deletes the lease only for its owner.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1]) end
return 0`)

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

// Release gives a held lease up at once, for the next process to take.
func (l *Lease) Release(ctx context.Context) error {
	return releaseScript.Run(ctx, l.rdb, []string{l.key}, l.owner).Err()
}
