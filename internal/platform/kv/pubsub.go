package kv

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Publish sends message to the subscribers of channel (on a Cluster,
// every node's).
func (s *Store) Publish(ctx context.Context, channel, message string) error {
	return failed(s.rdb.Publish(ctx, channel, message).Err())
}

// Subscribe calls message with each message sent on channel until ctx
// ends, from a connection of its own. It returns once subscribed (or
// with the error). The connection reconnects by itself, and messages sent
// while it is down are lost, so gap is called whenever the subscription
// breaks and again once it is back: a subscriber that caches what the
// messages would invalidate drops that cache then.
func (s *Store) Subscribe(ctx context.Context, channel string, gap func(), message func(payload string)) error {
	ps := s.rdb.Subscribe(ctx, channel)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return failed(err)
	}
	go func() {
		<-ctx.Done()
		_ = ps.Close() // unblocks Receive
	}()
	go func() {
		for ctx.Err() == nil {
			m, err := ps.Receive(ctx)
			switch m := m.(type) {
			case *redis.Message:
				message(m.Payload)
			case *redis.Subscription:
				gap() // resubscribed after a reconnect
			}
			if err != nil && ctx.Err() == nil {
				gap()
				select { // the next Receive reconnects; do not spin while Redis is down
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}()
	return nil
}
