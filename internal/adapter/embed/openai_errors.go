package embed

import (
	"context"
	"errors"
	"net"

	"ragd/internal/adapter/httpapi"
)

// IsTransient reports whether err may go away on retry: network errors,
// timeouts, 408, 429 and 5xx. Bad requests, auth failures, missing models and
// malformed answers are not, and neither is the caller cancelling.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apiErr, ok := errors.AsType[*httpapi.Error](err); ok {
		return apiErr.Transient()
	}
	if errors.Is(err, context.DeadlineExceeded) || httpapi.IsTransport(err) {
		return true
	}
	_, ok := errors.AsType[net.Error](err)
	return ok
}
