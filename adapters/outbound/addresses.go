package outbound

import (
	"net/netip"
)

// refusedBlock is an address block no call reaches unless the operator
// allows it, with the reason the log gives.
type refusedBlock struct {
	prefix netip.Prefix
	why    string
}

// refusedIPv4 are the IPv4 blocks that are not the public internet: the
// IANA special-purpose registry's blocks that are not globally reachable,
// and the ones that reach the service's own networks in practice (CGNAT
// space is where some clouds put their metadata service, 100.100.100.200).
var refusedIPv4 = []refusedBlock{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network address (0.0.0.0 reaches this machine)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared carrier-grade NAT address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local address (cloud metadata lives at 169.254.169.254)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation address"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved address (255.255.255.255 is broadcast)"},
}

// ipv6Unicast is the block the IPv6 internet is numbered from; everything
// outside it (unspecified, loopback, unique-local, link-local, site-local,
// multicast, discard, local NAT64, IPv4-compatible) is refused whole.
var ipv6Unicast = netip.MustParsePrefix("2000::/3")

// refusedIPv6 are the blocks inside 2000::/3 that are not public hosts:
// documentation, and the transition forms that carry an IPv4 address the
// check would not see.
var refusedIPv6 = []refusedBlock{
	{netip.MustParsePrefix("2001::/32"), "Teredo address (carries an IPv4 address)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation address"},
	{netip.MustParsePrefix("2002::/16"), "6to4 address (carries an IPv4 address)"},
	{netip.MustParsePrefix("3fff::/20"), "documentation address"},
}

// nat64 is the well-known NAT64 prefix: on an IPv6-only network with DNS64
// every IPv4 server is reached through it, so an address in it is judged
// by the IPv4 address in its last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// refusal says why addr is not a public internet address, or "" when it
// is one. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) and a NAT64
// address are judged by the IPv4 address they carry.
func refusal(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap()
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !addr.IsValid() {
		return "invalid address"
	}
	if addr.Is4() {
		for _, b := range refusedIPv4 {
			if b.prefix.Contains(addr) {
				return b.why
			}
		}
		return ""
	}
	switch {
	case addr.IsUnspecified():
		return "unspecified address"
	case addr.IsLoopback():
		return "loopback address"
	case addr.IsLinkLocalUnicast():
		return "link-local address"
	case addr.IsPrivate():
		return "unique-local address"
	case addr.IsMulticast():
		return "multicast address"
	case !ipv6Unicast.Contains(addr):
		return "reserved IPv6 address"
	}
	for _, b := range refusedIPv6 {
		if b.prefix.Contains(addr) {
			return b.why
		}
	}
	return ""
}
