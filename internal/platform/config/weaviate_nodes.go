package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Nodes splits a comma-separated weaviate.url or weaviate.grpc_addr into
// its entries, one per Weaviate node.
func Nodes(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// validateNodes checks the node lists pair up (node i's REST URL with its
// gRPC address) and the replication settings.
func (w Weaviate) validateNodes() []error {
	var errs []error
	urls, addrs := Nodes(w.URL), Nodes(w.GRPCAddr)
	for _, u := range urls {
		if p, err := url.Parse(u); err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
			errs = append(errs, fmt.Errorf("weaviate.url: %q is not an http(s) URL", u))
		}
	}
	if len(urls) > 0 && len(addrs) > 0 && len(urls) != len(addrs) {
		errs = append(errs, fmt.Errorf("weaviate.url lists %d nodes but weaviate.grpc_addr %d: give each node's REST URL and gRPC address in the same order",
			len(urls), len(addrs)))
	}
	if w.ReplicationFactor < 1 {
		errs = append(errs, fmt.Errorf("weaviate.replication_factor must be at least 1, not %d", w.ReplicationFactor))
	}
	switch w.Consistency {
	case "ONE", "QUORUM", "ALL":
	default:
		errs = append(errs, fmt.Errorf("weaviate.consistency must be ONE, QUORUM or ALL, not %q", w.Consistency))
	}
	return errs
}
