package websearchapi

import (
	"context"
	"errors"
	"fmt"

	"ragd"
	"ragd/internal/adapter/websearch"
)

func notConfigured() *rpcError {
	return &rpcError{Code: CodeNotConfigured, Message: websearch.ErrNotConfigured.Error()}
}

// failure turns a provider's error into what the client sees: -32000 when
// unconfigured, -32602 for arguments the provider refused, else -32001 with
// a readable message (websearch.Public: never an internal error's text nor
// the provider's own words) and, in data, the provider and when to retry.
func (s *Server) failure(err error) *rpcError {
	switch {
	case errors.Is(err, websearch.ErrNotConfigured):
		return notConfigured()
	case ragd.KindOf(err) == ragd.KindInvalid:
		return validationError(err)
	}
	data := map[string]any{"provider": s.providerName()}
	var re *ragd.Error
	if errors.As(err, &re) && re.RetryAfterSeconds > 0 {
		data["retry_after_seconds"] = re.RetryAfterSeconds
	}
	var msg string
	switch public := websearch.Public(err); {
	case errors.Is(err, ragd.ErrBreakerOpen):
		data["breaker_open"] = true
		msg = "web search is unavailable: its circuit breaker is open after repeated failures"
		if re != nil && re.RetryAfterSeconds > 0 {
			msg += fmt.Sprintf("; retry in %d s", re.RetryAfterSeconds)
		}
	case errors.Is(err, context.Canceled):
		msg = "web search was cancelled"
	case public != "":
		msg = "web search failed: " + public
	case errors.Is(err, context.DeadlineExceeded):
		msg = "web search failed: the provider did not answer in time"
	default:
		// What a transport error says (hosts, addresses) is for the log.
		msg = "web search failed: the provider could not be reached or gave an unreadable answer (the server logged the details)"
	}
	return &rpcError{Code: CodeProviderFailed, Message: msg, Data: data}
}

// logFailure records a provider failure; cancellations are the client's
// doing and not worth a warning.
func (s *Server) logFailure(ctx context.Context, via string, err error) {
	if errors.Is(err, context.Canceled) {
		s.log.DebugContext(ctx, "web search cancelled", "via", via, "provider", s.providerName())
		return
	}
	s.log.WarnContext(ctx, "web search failed", "via", via, "provider", s.providerName(), "err", err)
}
