package authn

import (
	"context"
	"time"

	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

// RedisSessions keeps browser sessions in Redis, each under
// keyspace.Keys.Session of the digest of its id with the session's TTL, so
// every ragd replica sharing the Redis knows them and a logout ends them
// everywhere.
type RedisSessions struct {
	kv   *kv.Store
	keys keyspace.Keys
}

// NewRedisSessions returns a SessionStore in st, keeping sessions where
// keys names them.
func NewRedisSessions(st *kv.Store, keys keyspace.Keys) *RedisSessions {
	return &RedisSessions{kv: st, keys: keys}
}

// Save stores a session for ttl.
func (s *RedisSessions) Save(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.kv.Set(ctx, s.keys.Session(key), value, ttl)
}

// Load returns a session, false when there is none.
func (s *RedisSessions) Load(ctx context.Context, key string) ([]byte, bool, error) {
	return s.kv.Get(ctx, s.keys.Session(key))
}

// Delete ends a session.
func (s *RedisSessions) Delete(ctx context.Context, key string) error {
	return s.kv.Delete(ctx, s.keys.Session(key))
}
