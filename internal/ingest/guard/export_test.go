package guard

import "net/netip"

// BlockingOnly is a Fetcher that treats exactly the addresses blocked
// reports as non-public, so a test can serve a "public" and a "private"
// address from two loopback addresses.
func BlockingOnly(blocked func(netip.Addr) bool) *Fetcher {
	return &Fetcher{isBlocked: blocked}
}
