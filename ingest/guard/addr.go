package guard

import (
	"net/netip"
)

// nonPublic lists ranges the netip predicates do not cover but a server
// should never fetch from on a user's behalf.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"; 0.0.0.0 reaches localhost on Linux
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and the broadcast address
}

// nat64 embeds an IPv4 address in its low 32 bits (RFC 6052).
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// isNonPublic reports loopback, private (RFC 1918, fc00::/7), link-local,
// unspecified, multicast, CGNAT and reserved addresses, looking through
// IPv4-mapped and NAT64 IPv6 forms.
func isNonPublic(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
