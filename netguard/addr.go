package netguard

import (
	"fmt"
	"net/netip"
)

// blockedRange is a special-purpose range with the name used in error text.
type blockedRange struct {
	prefix netip.Prefix
	name   string
}

func mustRange(cidr, name string) blockedRange {
	return blockedRange{netip.MustParsePrefix(cidr), name}
}

// blockedV4 is the IANA IPv4 Special-Purpose Address Registry (as tabulated by
// code.dny.dev/ssrf v0.3.0), plus multicast, which the registry leaves out, and
// Azure's WireServer, which is an ordinary-looking public address. Entries the
// registry calls "globally reachable" (AS112, AMT) are blocked anyway: no
// citation lives there, and a deny costs nothing. addr_ssrf_test.go and
// addr_iana_test.go hold these tables against ssrf's lists and IANA's own CSV
// files, and list every deliberate difference.
var blockedV4 = []blockedRange{
	mustRange("0.0.0.0/8", "this network; 0.0.0.0 reaches local listeners"),
	mustRange("10.0.0.0/8", "private"),
	mustRange("100.64.0.0/10", "shared address space (CGNAT; Alibaba metadata)"),
	mustRange("127.0.0.0/8", "loopback"),
	mustRange("169.254.0.0/16", "link-local (cloud metadata)"),
	mustRange("172.16.0.0/12", "private"),
	mustRange("192.0.0.0/24", "IETF protocol assignments (Oracle metadata)"),
	mustRange("192.0.2.0/24", "documentation"),
	mustRange("192.31.196.0/24", "AS112"),
	mustRange("192.52.193.0/24", "AMT"),
	mustRange("192.88.99.0/24", "6to4 relay anycast"),
	mustRange("192.168.0.0/16", "private"),
	mustRange("192.175.48.0/24", "AS112 direct delegation"),
	mustRange("198.18.0.0/15", "benchmarking"),
	mustRange("198.51.100.0/24", "documentation"),
	mustRange("203.0.113.0/24", "documentation"),
	mustRange("224.0.0.0/4", "multicast"),
	mustRange("240.0.0.0/4", "reserved, including limited broadcast"),
	mustRange("168.63.129.16/32", "Azure WireServer"),
}

// The IPv6 policy is an allow list, not a deny list: only global unicast
// (2000::/3) can be reached, which rules out loopback, unspecified, ULA
// (fc00::/7, including AWS's fd00:ec2::254), link-local, site-local,
// multicast, discard and SRv6 (5f00::/16) by construction. A deny list would
// have to be complete to be safe; this one only has to be right about the few
// blocks inside 2000::/3. Prefixes that embed an IPv4 address are decided by
// that address, because that is where the packets end up.
var (
	globalUnicast = netip.MustParsePrefix("2000::/3")
	compatV4      = netip.MustParsePrefix("::/96")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	teredo        = netip.MustParsePrefix("2001::/32")

	// blockedV6 lists the special blocks inside 2000::/3. 2001::/23 also
	// holds a few registry entries marked globally reachable (PCP anycast,
	// AMT, AS112-v6, ORCHIDv2); none of them serves web pages, so the whole
	// block stays closed. Teredo (2001::/32) is checked before this list.
	blockedV6 = []blockedRange{
		mustRange("2001::/23", "IETF protocol assignments"),
		mustRange("2001:db8::/32", "documentation"),
		mustRange("2620:4f:8000::/48", "AS112 direct delegation"),
		mustRange("3fff::/20", "documentation"),
	}
)

// nat64LocalOffsets are the byte positions of the embedded IPv4 address for
// each RFC 6052 prefix length an operator may carve out of the local-use
// prefix 64:ff9b:1::/48 (/48, /56, /64, /96; byte 8 is the reserved u-octet).
// The length in use is not visible in the address, so every reading must pass.
var nat64LocalOffsets = [][4]int{
	{6, 7, 9, 10},
	{7, 9, 10, 11},
	{9, 10, 11, 12},
	{12, 13, 14, 15},
}

// CheckAddr reports whether a may be contacted: nil if it may, otherwise an
// error wrapping ErrBlockedAddress that names the range. Operator allow rules
// (AllowCIDR) are consulted first. Preflight calls it for IP literals, and
// DialContext for every resolver answer, every pinned address, and again for
// the address of every socket just before it connects. An invalid address
// wraps ErrMalformed.
func (g *Guard) CheckAddr(a netip.Addr) error {
	if detail, err := g.addrVerdict(a); err != nil {
		return fmt.Errorf("netguard: %s: %w", detail, err)
	}
	return nil
}

// addrVerdict is CheckAddr's decision: the sentinel and a detail naming the
// address and the reason, or nil if a may be contacted.
func (g *Guard) addrVerdict(a netip.Addr) (string, error) {
	if !a.IsValid() {
		return "invalid IP address", ErrMalformed
	}
	if a.Zone() != "" {
		// A zone only means something for non-global scopes, and
		// netip.Prefix.Contains never matches a zoned address, so letting
		// one through would skip every rule below.
		return a.String() + ": zoned address", ErrBlockedAddress
	}
	// A mapped address is the IPv4 address it wraps: Go dials it over IPv4.
	v := a.Unmap()
	if g.allowed(v) {
		return "", nil
	}
	if why := classify(v); why != "" {
		return a.String() + ": " + why, ErrBlockedAddress
	}
	return "", nil
}

// classify returns why a (already unmapped) is blocked, or "" if it is not.
// It ignores operator allow rules.
func classify(a netip.Addr) string {
	if a.Is4() {
		return classify4(a)
	}
	b := a.As16()
	switch {
	case a == netip.IPv6Loopback():
		return "loopback"
	case a == netip.IPv6Unspecified():
		return "unspecified; reaches local listeners"
	case compatV4.Contains(a):
		// IPv4-compatible (deprecated): only an automatic tunnel would
		// carry it, and that would deliver it to the embedded address.
		return embedded(a, "IPv4-compatible", v4At(b, 12, 13, 14, 15))
	case nat64.Contains(a):
		return embedded(a, "NAT64", v4At(b, 12, 13, 14, 15))
	case nat64Local.Contains(a):
		for _, o := range nat64LocalOffsets {
			if why := embedded(a, "local-use NAT64", v4At(b, o[0], o[1], o[2], o[3])); why != "" {
				return why
			}
		}
		return ""
	case !globalUnicast.Contains(a):
		return "outside IPv6 global unicast 2000::/3"
	case sixToFour.Contains(a):
		return embedded(a, "6to4", v4At(b, 2, 3, 4, 5))
	case teredo.Contains(a):
		// Both ends of a Teredo tunnel are IPv4 hosts: the server in
		// bytes 4-7 and the client, bit-inverted, in bytes 12-15.
		if why := embedded(a, "Teredo server", v4At(b, 4, 5, 6, 7)); why != "" {
			return why
		}
		client := v4At(b, 12, 13, 14, 15).As4()
		for i := range client {
			client[i] ^= 0xff
		}
		return embedded(a, "Teredo client", netip.AddrFrom4(client))
	}
	for _, r := range blockedV6 {
		if r.prefix.Contains(a) {
			return "in " + r.prefix.String() + " (" + r.name + ")"
		}
	}
	return ""
}

func classify4(a netip.Addr) string {
	for _, r := range blockedV4 {
		if r.prefix.Contains(a) {
			return "in " + r.prefix.String() + " (" + r.name + ")"
		}
	}
	return ""
}

// embedded judges an IPv6 address by the IPv4 address it carries.
func embedded(a netip.Addr, kind string, v4 netip.Addr) string {
	if why := classify4(v4); why != "" {
		return kind + " form of " + v4.String() + ", " + why
	}
	return ""
}

func v4At(b [16]byte, i, j, k, l int) netip.Addr {
	return netip.AddrFrom4([4]byte{b[i], b[j], b[k], b[l]})
}
