// Package procbench measures ragd as users run it: its own process
// (internal/ragdproc via stack.StartProcess), called over the network,
// against the floor doing the same work in the same run, interleaved.
// `make bench` runs it.
package procbench

import (
	"maps"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// startRagd runs ragd as its own process with names of its own and
// settings (RAGD_* names) on top, then those of $RAGD_BENCH_SETTINGS
// ("RAGD_WORKER_CONCURRENCY=8,…", to try other settings), its CPU profile
// written to $RAGD_BENCH_PROFILE when set.
func startRagd(b *testing.B, settings map[string]string) *stack.Process {
	b.Helper()
	all := map[string]string{}
	maps.Copy(all, settings)
	for _, kv := range strings.Split(os.Getenv("RAGD_BENCH_SETTINGS"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			all[k] = v
		}
	}
	if p := os.Getenv("RAGD_BENCH_PROFILE"); p != "" {
		all["RAGD_CPU_PROFILE"] = p
	}
	return stack.StartProcess(b, all)
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
