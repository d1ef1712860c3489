package store

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// IsNodeFailure reports whether err says the node ragd called is down or
// unreachable — refused or reset connections, gRPC Unavailable, a node that
// is not ready (502–504), no answer in time — so another node may serve the
// call. An answer from a working node (a bad request, no replica of the
// tenant, a failed consistency level, a replica it could not reach) is not:
// every node would give it.
func IsNodeFailure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
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
		return ce.StatusCode == 502 || ce.StatusCode == 503 || ce.StatusCode == 504
	}
	if s, ok := status.FromError(unwrapAll(err)); ok && s.Code() != codes.Unknown {
		return s.Code() == codes.Unavailable || s.Code() == codes.DeadlineExceeded
	}
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe)
}

// noReplicaMessages are Weaviate's words (cluster/router, usecases/replica)
// for data out of reach on a working node, and the network errors it passes
// on when the node holding a tenant died and the cluster has not noticed yet
// ("remote shard object search ns0: connect: … connection refused").
var noReplicaMessages = []string{
	"no read replica found", "no write replica found",
	"cannot achieve consistency level", "cannot reach enough replicas", "not enough replicas",
	"connection refused", "connection reset", "no route to host", "i/o timeout", "broken pipe", "deadline exceeded",
}

// isNoReplica recognises, in an answer of a working node (never in ragd's
// own failure to reach one: see IsNodeFailure), that no live replica of a
// tenant, or too few for the consistency level, could be reached.
func isNoReplica(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, m := range noReplicaMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
