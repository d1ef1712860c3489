package rerank

import (
	"context"
	"errors"
)

// IsTransient reports whether err counts against the reranker's breaker:
// every failure but the caller cancelling. Unlike a user's bad request to
// the embedder, every request to the reranker is ragd's own, so a refused
// one (401, 404, 422), a malformed answer or a timeout all mean the stage
// does not work, and after a few the breaker spares searches the round trip.
func IsTransient(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled)
}
