package kv

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// AddMembers adds members to the set under key; with ttl > 0 the set
// expires ttl after this write.
func (s *Store) AddMembers(ctx context.Context, key string, ttl time.Duration, members ...string) error {
	if len(members) == 0 {
		return nil
	}
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, key, anys(members)...)
		if ttl > 0 {
			p.Expire(ctx, key, ttl)
		}
		return nil
	})
	return failed(err)
}

// Members returns the set under key (empty when there is none).
func (s *Store) Members(ctx context.Context, key string) ([]string, error) {
	m, err := s.rdb.SMembers(ctx, key).Result()
	return m, failed(err)
}

// RemoveMembers removes members from the set under key.
func (s *Store) RemoveMembers(ctx context.Context, key string, members ...string) error {
	if len(members) == 0 {
		return nil
	}
	return failed(s.rdb.SRem(ctx, key, anys(members)...).Err())
}

// TakeMembers returns the set under key and deletes it in one step.
func (s *Store) TakeMembers(ctx context.Context, key string) ([]string, error) {
	var members *redis.StringSliceCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		members = p.SMembers(ctx, key)
		p.Del(ctx, key)
		return nil
	})
	if err != nil {
		return nil, failed(err)
	}
	return members.Val(), nil
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
