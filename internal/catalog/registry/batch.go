package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// Held is a document to make current by the holder of its lock.
type Held struct {
	Lease *Lease
	Doc   ragd.Document
}

// PutHeldBatch is PutHeld for documents of one namespace at once, in one
// transaction that moves the namespace's epoch once: a round trip reads
// the previous versions, one checks and watches every lock, one writes.
// If any lock is no longer its holder's, nothing is written (ErrLockLost).
// The documents must have distinct ids.
func (r *Registry) PutHeldBatch(ctx context.Context, ns string, batch []Held) error {
	if len(batch) == 0 {
		return nil
	}
	prevs, bodies, err := r.readPrevious(ctx, ns, batch)
	if err != nil {
		return err
	}
	keys := make([]string, len(batch))
	for i, h := range batch {
		keys[i] = h.Lease.l.Key()
	}
	err = r.rdb.Watch(ctx, func(tx *redis.Tx) error {
		tokens := make([]*redis.StringCmd, len(batch))
		if _, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, k := range keys {
				tokens[i] = p.Get(ctx, k)
			}
			return nil
		}); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		for i, h := range batch {
			if tokens[i].Val() != h.Lease.l.Owner() {
				return ErrLockLost
			}
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i, h := range batch {
				r.write(ctx, p, h.Doc, prevs[i], bodies[i])
			}
			p.Incr(ctx, r.keys.Epoch(ns))
			return nil
		})
		return err
	}, keys...)
	if errors.Is(err, redis.TxFailedErr) {
		err = ErrLockLost // a lock changed between the check and the write
	}
	r.moved(ctx, ns)
	if err == nil {
		err = r.rdb.SAdd(ctx, r.keys.Namespaces(), ns).Err()
	}
	if err != nil {
		return fmt.Errorf("registry: record %d documents: %w", len(batch), err)
	}
	return nil
}

// readPrevious reads the batch's current versions, listing the namespace
// in the same round trip (see put), and encodes the new ones.
func (r *Registry) readPrevious(ctx context.Context, ns string, batch []Held) ([]*ragd.Document, [][]byte, error) {
	reads := make([]*redis.StringCmd, len(batch))
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, h := range batch {
			reads[i] = p.HGet(ctx, r.keys.Documents(ns), h.Doc.ID)
		}
		p.SAdd(ctx, r.keys.Namespaces(), ns)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, fmt.Errorf("registry: %w", err)
	}
	prevs, bodies := make([]*ragd.Document, len(batch)), make([][]byte, len(batch))
	for i, h := range batch {
		if h.Doc.Namespace != ns {
			return nil, nil, fmt.Errorf("registry: document %s is of namespace %s, not %s", h.Doc.ID, h.Doc.Namespace, ns)
		}
		prev, err := document(reads[i], ns, h.Doc.ID)
		if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
			return nil, nil, err
		}
		prevs[i] = prev
		if bodies[i], err = encode(h.Doc); err != nil {
			return nil, nil, err
		}
	}
	return prevs, bodies, nil
}
