package guard

import "net/netip"

// BlockingOnly is a Fetcher that treats exactly the addresses blocked
// reports as non-public, so a test can serve a "public" and a "private"
// address from two loopback addresses (127.0.0.1 and 127.0.0.2). Only
// tests build one; the server's Fetcher is configured by
// ingest.allow_private_urls.
func BlockingOnly(blocked func(netip.Addr) bool) *Fetcher {
	return &Fetcher{isBlocked: blocked}
}
