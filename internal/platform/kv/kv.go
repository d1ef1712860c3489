// Package kv is ragd's access to Redis. It builds the one client every
// part of ragd shares from config (a plain client, go-redis's failover
// client following a Sentinel promotion, or its cluster client; Open,
// with the hook that waits out a failover), traces its commands
// (Instrument), moves an older ragd's keys to the current layout
// (Migrate), and gives the small keyed records most of ragd keeps —
// console sessions, the embedder-switch record, sign-in state — through
// Store: get, set, set-if-new, read-once, delete, counters, optimistic
// updates and sets. Every Redis failure a Store method meets comes back as
// ragd.Unavailable("redis", …).
//
// Only the packages whose state is their own Lua scripts and pipelines
// (the job queue, the registry, the result cache, leases, vocabularies)
// use go-redis directly besides this one; they get the client from
// Store.Client.
package kv

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// Store reads and writes small keyed records in Redis. Keys come from
// keyspace.Keys; Store adds no prefix of its own.
type Store struct{ rdb redis.UniversalClient }

// New returns a Store on rdb.
func New(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb} }

// Client is the go-redis client under s, for the packages that run their
// own scripts and pipelines.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Close closes the client's connections.
func (s *Store) Close() error { return s.rdb.Close() }

// Ping reports whether Redis answers.
func (s *Store) Ping(ctx context.Context) error { return failed(s.rdb.Ping(ctx).Err()) }

// Get returns key's value, false when there is none.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return found(s.rdb.Get(ctx, key).Bytes())
}

// Set stores value under key for ttl (0: no expiry).
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return failed(s.rdb.Set(ctx, key, value, ttl).Err())
}

// SetNew stores value under key for ttl unless key exists; false when it
// did.
func (s *Store) SetNew(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	ok, err := s.rdb.SetNX(ctx, key, value, ttl).Result()
	return ok, failed(err)
}

// Take returns key's value and deletes it in one step, so of two callers
// only one gets it (a single-use code); false when there is none.
func (s *Store) Take(ctx context.Context, key string) ([]byte, bool, error) {
	return found(s.rdb.GetDel(ctx, key).Bytes())
}

// Delete deletes keys, each on its own: on a Redis Cluster they may live
// in different slots.
func (s *Store) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Del(ctx, k)
		}
		return nil
	})
	return failed(err)
}

// Incr adds one to the counter under key and returns it; a counter it
// creates expires after ttl (0: never), so a window of ttl counts from
// the first increment.
func (s *Store) Incr(ctx context.Context, key string, ttl time.Duration) (int64, error) {
	var n *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.Incr(ctx, key)
		if ttl > 0 {
			p.ExpireNX(ctx, key, ttl)
		}
		return nil
	})
	if err != nil {
		return 0, failed(err)
	}
	return n.Val(), nil
}

// found turns a read's reply into (value, present, error).
func found(b []byte, err error) ([]byte, bool, error) {
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, failed(err)
	}
	return b, true, nil
}

// failed is the one rule for what a caller sees of a Redis failure:
// ragd.Unavailable("redis", err); nil stays nil.
func failed(err error) error {
	if err == nil {
		return nil
	}
	var e *ragd.Error
	if errors.As(err, &e) {
		return err
	}
	return ragd.Unavailable("redis", err)
}
