// Package resilience guards calls to ragd's dependencies (Weaviate, the
// embedder, the chat model, web search, the reranker): each dependency gets
// a circuit breaker (gobreaker), every attempt the dependency's own timeout,
// and transient failures a few retries with exponential backoff and jitter
// (backoff/v5). The guard's per-attempt timeout is the only one a guarded
// call has: the adapters set none of their own, so a slow answer ends at
// the configured time and a retry still has time to run.
package resilience

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/sony/gobreaker/v2"

	"ragd"
	"ragd/internal/platform/telemetry"
)

// Policy configures a Guard.
type Policy struct {
	// Timeout bounds each attempt: the dependency's own configured timeout
	// (weaviate.timeout, embed.timeout, llm.timeout, websearch.timeout,
	// rerank.timeout). Zero or less means DefaultPolicy's. DoStream calls
	// are not bounded by it.
	Timeout time.Duration
	// MaxRetries is how many times a transient failure is retried.
	MaxRetries int
	// FailThreshold consecutive failures open the breaker.
	FailThreshold uint32
	// OpenFor is how long an open breaker refuses calls before letting one
	// through to probe the dependency.
	OpenFor time.Duration
	// InitialBackoff and MaxBackoff bound the wait between retries.
	InitialBackoff, MaxBackoff time.Duration
}

// DefaultPolicy is a dependency call's policy unless configured: 30 s per
// call, 3 retries, 5 failures in a row open the breaker for 30 s.
func DefaultPolicy() Policy {
	return Policy{Timeout: 30 * time.Second, MaxRetries: 3, FailThreshold: 5, OpenFor: 30 * time.Second,
		InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second}
}

// Hooks let callers watch a guard, for metrics and logs. Any may be nil.
type Hooks struct {
	// StateChange is called when the breaker changes state, with the
	// states' names: closed, half-open or open.
	StateChange func(name string, from, to string)
	// Call is called after every attempt with its duration and error.
	Call func(name string, d time.Duration, err error)
}

// Guards holds one guard per dependency of ragd.
type Guards struct {
	Weaviate, Embedder, LLM, WebSearch, Reranker *Guard
}

// All lists the guards that are set.
func (g Guards) All() []*Guard {
	var out []*Guard
	for _, x := range []*Guard{g.Weaviate, g.Embedder, g.LLM, g.WebSearch, g.Reranker} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// Guard protects calls to one dependency. It is safe for concurrent use.
type Guard struct {
	name      string
	policy    Policy
	breaker   *gobreaker.CircuitBreaker[any]
	transient func(error) bool
	hooks     Hooks
}

// New returns a guard for the named dependency. transient tells failures
// worth retrying (and counting against the dependency) from the caller's own
// mistakes; nil treats every error as transient.
func New(name string, p Policy, transient func(error) bool, hooks Hooks) *Guard {
	if transient == nil {
		transient = func(error) bool { return true }
	}
	if p.Timeout <= 0 {
		// A zero deadline would fail every call at once.
		p.Timeout = DefaultPolicy().Timeout
	}
	g := &Guard{name: name, policy: p, transient: transient, hooks: hooks}
	g.breaker = gobreaker.NewCircuitBreaker[any](gobreaker.Settings{
		Name:        name,
		MaxRequests: 1,
		Timeout:     p.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= max(p.FailThreshold, 1) },
		// A validation error says nothing about the dependency's health.
		IsSuccessful:  func(err error) bool { return err == nil || !g.transient(err) },
		IsExcluded:    func(err error) bool { return errors.Is(err, context.Canceled) },
		OnStateChange: stateChange(hooks.StateChange),
	})
	return g
}

// Timeout is the deadline of each attempt (not of DoStream calls).
func (g *Guard) Timeout() time.Duration { return g.policy.Timeout }

// Name is the dependency's name.
func (g *Guard) Name() string { return g.name }

// State is the breaker's state: "closed", "half-open" or "open".
func (g *Guard) State() string { return g.breaker.State().String() }

// Do runs fn, the dependency's operation op, through the guard. An open
// breaker fails at once; a timeout or an exhausted retry becomes a ragd
// Unavailable error naming the dependency; a non-transient error is
// returned as it is, after one attempt. Under a traced request the call
// is a span, <dependency>.<op>, with its retries and the breaker's
// refusals as events.
func Do[T any](ctx context.Context, g *Guard, op string, fn func(context.Context) (T, error)) (T, error) {
	return do(ctx, g, op, uint(g.policy.MaxRetries)+1, g.policy.Timeout, fn)
}

// Run is Do for calls that return only an error.
func Run(ctx context.Context, g *Guard, op string, fn func(context.Context) error) error {
	_, err := Do(ctx, g, op, func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
	return err
}

// DoStream runs a streamed call through the guard's breaker once, with no
// retry (part of the answer may already be with the client) and without
// the per-attempt deadline: a deadline on the whole call would cut off a
// long answer that is still flowing, so fn bounds the stream itself (the
// chat model's wait for each chunk).
func DoStream[T any](ctx context.Context, g *Guard, op string, fn func(context.Context) (T, error)) (T, error) {
	return do(ctx, g, op, 1, 0, fn)
}

// do runs fn up to tries times, each attempt bounded by timeout (0: by
// ctx alone), in the call's span.
func do[T any](ctx context.Context, g *Guard, op string, tries uint, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, span := g.startCall(ctx, op)
	v, err := retry(ctx, g, span, tries, timeout, fn)
	span.End(err)
	return v, err
}

// retry is do's work: the attempts, each through the breaker, and the
// error the caller gets.
func retry[T any](ctx context.Context, g *Guard, span telemetry.Span, tries uint, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	attempt := func() (T, error) {
		var zero T
		out, err := g.breaker.Execute(func() (any, error) {
			return g.attempt(ctx, timeout, func(ctx context.Context) (any, error) { return fn(ctx) })
		})
		switch {
		case errors.Is(err, gobreaker.ErrOpenState), errors.Is(err, gobreaker.ErrTooManyRequests):
			span.Event("breaker refused the call", telemetry.String(telemetry.KeyBreaker, g.State()))
			return zero, backoff.Permanent(&ragd.Error{Kind: ragd.KindUnavailable,
				Message:           fmt.Sprintf("%s is unavailable: circuit breaker is open after repeated failures", g.name),
				RetryAfterSeconds: max(int(g.policy.OpenFor.Seconds()), 1), Err: refused{err}})
		case err != nil && (!g.transient(err) || ctx.Err() != nil):
			return zero, backoff.Permanent(err)
		case err != nil:
			return zero, err
		}
		v, _ := out.(T)
		return v, nil
	}
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval, eb.MaxInterval, eb.RandomizationFactor = g.policy.InitialBackoff, g.policy.MaxBackoff, 0.5
	v, err := backoff.Retry(ctx, attempt, backoff.WithBackOff(eb), backoff.WithMaxTries(tries),
		backoff.WithMaxElapsedTime(0), backoff.WithNotify(retryEvents(span)))
	if err == nil {
		return v, nil
	}
	var re *ragd.Error
	if errors.As(err, &re) || !g.transient(err) || ctx.Err() != nil {
		return v, err
	}
	var te *timeoutError
	if errors.As(err, &te) {
		return v, &ragd.Error{Kind: ragd.KindUnavailable, Message: te.Error(), RetryAfterSeconds: 1, Err: err}
	}
	return v, ragd.Unavailable(g.name, err)
}

// attempt is one call of fn, timed for the hooks, its own deadline's
// expiry turned into a timeoutError naming the dependency.
func (g *Guard) attempt(ctx context.Context, timeout time.Duration, fn func(context.Context) (any, error)) (any, error) {
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	start := time.Now()
	v, err := fn(callCtx)
	if g.hooks.Call != nil {
		g.hooks.Call(g.name, time.Since(start), err)
	}
	if err != nil && timeout > 0 && callCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = &timeoutError{dependency: g.name, after: timeout, err: err}
	}
	return v, err
}

type timeoutError struct {
	dependency string
	after      time.Duration
	err        error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s did not answer within %s", e.dependency, e.after)
}

func (e *timeoutError) Unwrap() error { return e.err }

// refused is the breaker's refusal of a call, which callers match as
// ragd.ErrBreakerOpen; its text is the breaker's own.
type refused struct{ error }

func (r refused) Is(target error) bool { return target == ragd.ErrBreakerOpen }
func (r refused) Unwrap() error        { return r.error }

// stateChange adapts a hook to the breaker's callback, nil to nil.
func stateChange(hook func(name, from, to string)) func(string, gobreaker.State, gobreaker.State) {
	if hook == nil {
		return nil
	}
	return func(name string, from, to gobreaker.State) { hook(name, from.String(), to.String()) }
}
