package store

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ragd"
)

// IsTransient reports whether a Weaviate error is worth retrying and counts
// against Weaviate's health: connection trouble, timeouts, overload and
// server errors. A rejected request (bad filter, bad input, a gRPC message
// over a size limit: ResourceExhausted) is not, nor an error already typed
// (no live replica of one namespace: retrying will not bring the node
// back, and the breaker must stay closed for the others).
func IsTransient(err error) bool {
	var re *ragd.Error
	if err == nil || errors.Is(err, context.Canceled) || errors.As(err, &re) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) {
		if !ce.IsUnexpectedStatusCode {
			return true // the request never got an answer
		}
		return ce.StatusCode == 429 || ce.StatusCode >= 500
	}
	if s, ok := status.FromError(unwrapAll(err)); ok && s.Code() != codes.Unknown {
		switch s.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.Internal:
			return true
		default:
			return false
		}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// refusedWrite is a batch write's error (what names the write) typed when
// it is a property of the request, not of Weaviate's health: a gRPC
// ResourceExhausted (a message over a size limit, the client's or the
// server's) is KindTooLarge, an InvalidArgument KindInvalid. Typed, it is
// not retried by the guard, does not count against the breaker every
// search shares, and fails its job at once (ingest.IsPermanent): 7
// chunks of 30 MiB once opened the breaker with their retries. Any other
// error is wrapped as it was.
func refusedWrite(what string, err error) error {
	s, ok := status.FromError(unwrapAll(err))
	switch {
	case ok && s.Code() == codes.ResourceExhausted:
		return &ragd.Error{Kind: ragd.KindTooLarge, Err: err,
			Message: what + ": Weaviate refused it as too large (ResourceExhausted); a retry cannot succeed"}
	case ok && s.Code() == codes.InvalidArgument:
		return &ragd.Error{Kind: ragd.KindInvalid, Err: err,
			Message: what + ": Weaviate refused it as invalid (InvalidArgument); a retry cannot succeed"}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// unwrapAll finds the innermost error carrying a gRPC status.
func unwrapAll(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if _, ok := e.(interface{ GRPCStatus() *status.Status }); ok {
			return e
		}
	}
	return err
}
