package resilience

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"

	"ragd/internal/platform/telemetry"
)

// startCall opens the span of one guarded call, a client span named
// <dependency>.<op>, with the breaker's state as the call began. Outside
// a traced request it opens nothing.
func (g *Guard) startCall(ctx context.Context, op string) (context.Context, telemetry.Span) {
	ctx, span := telemetry.StartCall(ctx, g.name, op)
	if span.Recording() {
		span.Set(telemetry.String(telemetry.KeyDependency, g.name), telemetry.String(telemetry.KeyBreaker, g.State()))
	}
	return ctx, span
}

// retryEvents hears of each failed attempt that is retried, as an event
// of a traced call's span; nil (nothing to hear) for an untraced one.
func retryEvents(span telemetry.Span) backoff.Notify {
	if !span.Recording() {
		return nil
	}
	retries := 0
	return func(err error, wait time.Duration) {
		retries++
		span.Event("retry", telemetry.Int("ragd.retry", retries), telemetry.String("error", err.Error()),
			telemetry.Int("ragd.retry.wait_ms", int(wait.Milliseconds())))
		span.Set(telemetry.Int(telemetry.KeyAttempts, retries+1))
	}
}
