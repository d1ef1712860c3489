package store

import (
	"context"
	"crypto/tls"
	"strings"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"ragd/internal/platform/telemetry"
)

// grpcWire is ragd's one gRPC connection to a node: chunk searches
// (searchwire.go), the other reads (objects.go) and batch writes go over
// it. The Weaviate client opens none of its own: its connection skips
// certificate verification, so a node serving TLS could be impersonated
// to read or write any document.
type grpcWire struct {
	conn    *grpc.ClientConn
	client  pb.WeaviateClient // conn, with protobuf as the codec
	auth    metadata.MD       // the API key's header, nil without one
	timeout time.Duration     // applied, as the client does, when ctx has no deadline
}

// wireWindow is the connection's flow-control window, per stream and for
// the connection. A fixed window turns off gRPC's bandwidth estimation,
// which sends a PING with every reply received (and a window update every
// few): on a fast network that is a write per search that buys nothing,
// and replies are far smaller than this.
const wireWindow = 4 << 20

// newGRPCWire connects (lazily) to a node's gRPC endpoint, over TLS with
// secured (tlsConfig's: verified) when not nil, authenticated as the
// Weaviate client does for the node whose REST host is restHost.
func newGRPCWire(grpcAddr, restHost string, secured *tls.Config, apiKey string, timeout time.Duration) (*grpcWire, error) {
	creds := insecure.NewCredentials()
	if secured != nil {
		// A deployment serving REST over https with a certificate ragd
		// trusts serves gRPC with it too.
		creds = credentials.NewTLS(secured.Clone())
	}
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(creds),
		grpc.WithInitialWindowSize(wireWindow), grpc.WithInitialConnWindowSize(wireWindow))
	if err != nil {
		return nil, err
	}
	w := &grpcWire{conn: conn, client: pb.NewWeaviateClient(conn), timeout: timeout}
	if apiKey != "" {
		w.auth = metadata.New(apiKeyHeaders(apiKey, restHost))
	}
	if w.timeout <= 0 {
		w.timeout = clientTimeout
	}
	return w, nil
}

// callContext is ctx with the call's deadline, when ctx has none, the API
// key's header and the trace context.
func (w *grpcWire) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	cancel := context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		ctx, cancel = context.WithTimeout(ctx, w.timeout)
	}
	if md := telemetry.WithTraceMetadata(ctx, w.auth); md != nil {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	return ctx, cancel
}

// searchObjects runs req with protobuf's own decoding, for the reads that
// are not chunk searches.
func (w *grpcWire) searchObjects(ctx context.Context, req *pb.SearchRequest) (*pb.SearchReply, error) {
	ctx, cancel := w.callContext(ctx)
	defer cancel()
	return w.client.Search(ctx, req)
}

// batchObjects writes a batch.
func (w *grpcWire) batchObjects(ctx context.Context, req *pb.BatchObjectsRequest) (*pb.BatchObjectsReply, error) {
	ctx, cancel := w.callContext(ctx)
	defer cancel()
	return w.client.BatchObjects(ctx, req)
}

// clientTimeout is the Weaviate client's default timeout, which ragd's
// calls take when weaviate.timeout is not set.
const clientTimeout = 60 * time.Second

// apiKeyHeaders is what the Weaviate client's auth.ApiKey sends with
// every call (REST headers, gRPC metadata) for an API key: a bearer token,
// and for Weaviate Cloud its key and cluster headers too. None without a
// key.
func apiKeyHeaders(apiKey, host string) map[string]string {
	if apiKey == "" {
		return nil
	}
	h := map[string]string{"authorization": "Bearer " + apiKey}
	if weaviateCloud(host) {
		h["x-weaviate-api-key"], h["x-weaviate-cluster-url"] = apiKey, "https://"+host
	}
	return h
}

// weaviateCloud reports whether host is Weaviate Cloud's, as the client
// tells.
func weaviateCloud(host string) bool {
	h := strings.ToLower(host)
	return strings.Contains(h, "weaviate.io") || strings.Contains(h, "semi.technology") || strings.Contains(h, "weaviate.cloud")
}
