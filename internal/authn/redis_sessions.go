package authn

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// RedisSessions keeps browser sessions in Redis, each under
// keyspace.Keys.Session of the digest of its id with the session's TTL, so
// every ragd replica sharing the Redis knows them and a logout ends them
// everywhere.
type RedisSessions struct {
	rdb  redis.UniversalClient
	keys keyspace.Keys
}

// NewRedisSessions returns a SessionStore in rdb, keeping sessions where
// keys names them.
func NewRedisSessions(rdb redis.UniversalClient, keys keyspace.Keys) *RedisSessions {
	return &RedisSessions{rdb: rdb, keys: keys}
}

// Save stores a session for ttl.
func (s *RedisSessions) Save(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, s.keys.Session(key), value, ttl).Err()
}

// Load returns a session, false when there is none.
func (s *RedisSessions) Load(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.rdb.Get(ctx, s.keys.Session(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// Delete ends a session.
func (s *RedisSessions) Delete(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, s.keys.Session(key)).Err()
}
