package resilience

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"

	"ragd/telemetry"
)

// startCall opens the span of one guarded call, a client span named
// <dependency>.<op>, with the breaker's state as the call began. Outside
// a traced request it opens nothing.
func (g *Guard) startCall(ctx context.Context, op string) (context.Context, telemetry.Span) {
	ctx, span := telemetry.StartClient(ctx, g.name+"."+op)
	if span.Recording() {
		span.Set(telemetry.String(telemetry.KeyDependency, g.name), telemetry.String(telemetry.KeyBreaker, g.State()))
	}
	return ctx, span
}

// retryOptions are the retry loop's options; a traced call also hears of
// each failed attempt that is retried, as an event of its span.
func retryOptions(span telemetry.Span, eb backoff.BackOff, tries uint) []backoff.RetryOption {
	opts := []backoff.RetryOption{backoff.WithBackOff(eb), backoff.WithMaxTries(tries), backoff.WithMaxElapsedTime(0)}
	if span.Recording() {
		retries := 0
		opts = append(opts, backoff.WithNotify(func(err error, wait time.Duration) {
			retries++
			span.Event("retry", telemetry.Int("ragd.retry", retries), telemetry.String("error", err.Error()),
				telemetry.Int("ragd.retry.wait_ms", int(wait.Milliseconds())))
			span.Set(telemetry.Int(telemetry.KeyAttempts, retries+1))
		}))
	}
	return opts
}
