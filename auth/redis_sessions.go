package auth

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisSessions keeps browser sessions in Redis, each under
// <prefix>:session:<digest of its id> with the session's TTL, so every ragd
// replica sharing the Redis knows them and a logout ends them everywhere.
type RedisSessions struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisSessions returns a SessionStore in rdb under key prefix.
func NewRedisSessions(rdb redis.UniversalClient, prefix string) *RedisSessions {
	return &RedisSessions{rdb: rdb, prefix: prefix + ":session:"}
}

// Save stores a session for ttl.
func (s *RedisSessions) Save(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, s.prefix+key, value, ttl).Err()
}

// Load returns a session, false when there is none.
func (s *RedisSessions) Load(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.rdb.Get(ctx, s.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// Delete ends a session.
func (s *RedisSessions) Delete(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, s.prefix+key).Err()
}
