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

// The IPv6 forms that embed an IPv4 address, and where (IPv4-mapped
// addresses are netip's Unmap).
var (
	// nat64 embeds it in its low 32 bits (RFC 6052).
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// sixToFour (6to4, RFC 3056) embeds it in bits 16-47: 2002:7f00:1::
	// is 127.0.0.1's site.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// compatible (IPv4-compatible, RFC 4291, deprecated) embeds it in its
	// low 32 bits; :: and ::1 are IPv6's own.
	compatible = netip.MustParsePrefix("::/96")
)

// isNonPublic reports loopback, private (RFC 1918, fc00::/7), link-local,
// unspecified, multicast, CGNAT and reserved addresses, looking through
// the IPv6 forms that embed an IPv4 address (embeddedIPv4).
func isNonPublic(a netip.Addr) bool {
	a = embeddedIPv4(a.WithZone(""))
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

// embeddedIPv4 is the IPv4 address an IPv4-mapped, NAT64, 6to4 or
// IPv4-compatible IPv6 address embeds, a itself for any other.
func embeddedIPv4(a netip.Addr) netip.Addr {
	a = a.Unmap()
	b := a.As16()
	switch {
	case !a.Is6():
		return a
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:]))
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6]))
	case compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return a
}
