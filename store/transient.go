package store

import (
	"context"
	"errors"
	"net"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ragd"
)

// IsTransient reports whether a Weaviate error is worth retrying and counts
// against Weaviate's health: connection trouble, timeouts, overload and
// server errors. A rejected request (bad filter, bad input) is not, nor an
// error already typed (no live replica of one namespace: retrying will not
// bring the node back, and the breaker must stay closed for the others).
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
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Internal:
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

// unwrapAll finds the innermost error carrying a gRPC status.
func unwrapAll(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if _, ok := e.(interface{ GRPCStatus() *status.Status }); ok {
			return e
		}
	}
	return err
}
