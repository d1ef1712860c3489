package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// lockTTL bounds how long a crashed worker's lock outlives it; a live holder
// renews it every lockTTL/3.
const lockTTL = 30 * time.Second

var unlockScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)
var renewScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end return 0`)

// Lock takes the document's write lock, waiting up to wait for another job to
// release it. Only one job writes a document at a time, so a re-ingest can
// never delete chunks a concurrent job has just written. The returned func
// releases the lock.
func (r *Registry) Lock(ctx context.Context, namespace, id string, wait time.Duration) (func(), error) {
	key := r.key("lock", namespace) + ":" + id
	var b [12]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	deadline := time.Now().Add(wait)
	for {
		ok, err := r.rdb.SetNX(ctx, key, token, lockTTL).Result()
		if err != nil {
			return nil, fmt.Errorf("registry lock: %w", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("document %s is being written by another job; will retry", id)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(lockTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				renewScript.Run(context.Background(), r.rdb, []string{key}, token, lockTTL.Milliseconds())
			}
		}
	}()
	return func() {
		close(stop)
		unlockScript.Run(context.Background(), r.rdb, []string{key}, token)
	}, nil
}
