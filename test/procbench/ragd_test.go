// Package procbench measures ragd as users run it: its own process
// (internal/ragdproc via stack.StartProcess), called over the network,
// against the floor doing the same work in the same run, interleaved.
// `make bench` runs it.
package procbench

import (
	"net/url"
	"os"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd/internal/stack"
	"ragd/internal/testenv"
)

// startRagd runs ragd as its own process with names of its own and
// settings (RAGD_* names) on top, its CPU profile written to
// $RAGD_BENCH_PROFILE when set.
func startRagd(b *testing.B, settings map[string]string) *stack.Process {
	b.Helper()
	if settings == nil {
		settings = map[string]string{}
	}
	if p := os.Getenv("RAGD_BENCH_PROFILE"); p != "" {
		settings["RAGD_CPU_PROFILE"] = p
	}
	return stack.StartProcess(b, settings)
}

// rawClient is a Weaviate client of the test services, searching over gRPC
// as ragd does.
func rawClient(b testing.TB) *weaviate.Client {
	u, err := url.Parse(testenv.WeaviateURL(b))
	if err != nil {
		b.Fatal(err)
	}
	c, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: testenv.WeaviateGRPC(b)}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
