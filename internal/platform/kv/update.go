package kv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBusy is returned by Update when other writers kept changing the key
// through every try.
var ErrBusy = errors.New("too many concurrent writers")

// updateTries bounds Update's optimistic retries.
const updateTries = 20

// refused carries the error change returned through go-redis's Watch, so
// Update can hand it back as is rather than as a Redis failure.
type refused struct{ err error }

func (r refused) Error() string { return r.err.Error() }

// Update reads key's value, lets change compute the new one and writes it
// for ttl (0: no expiry), in one optimistic transaction (WATCH, MULTI)
// tried again when another writer changed key in between. change is told
// whether key existed; a nil value it returns deletes key; an error it
// returns writes nothing and is returned as is. Update returns what it
// wrote.
func (s *Store) Update(ctx context.Context, key string, ttl time.Duration, change func(old []byte, found bool) ([]byte, error)) ([]byte, error) {
	for range updateTries {
		var out []byte
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			old, ok, err := found(tx.Get(ctx, key).Bytes())
			if err != nil {
				return err
			}
			if out, err = change(old, ok); err != nil {
				return refused{err}
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				if out == nil {
					p.Del(ctx, key)
				} else {
					p.Set(ctx, key, out, ttl)
				}
				return nil
			})
			return err
		}, key)
		var r refused
		switch {
		case err == nil:
			return out, nil
		case errors.As(err, &r):
			return nil, r.err
		case !errors.Is(err, redis.TxFailedErr):
			return nil, failed(err)
		}
	}
	return nil, failed(fmt.Errorf("%s: %w", key, ErrBusy))
}
