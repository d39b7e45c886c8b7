package netguard

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"slices"
)

// Helpers for the tests that check the classifier against independent
// sources (addr_ssrf_test.go, addr_iana_test.go): which addresses of a
// prefix to try, the IPv6 forms that carry an IPv4 address, and the places
// where netguard deliberately judges such a form by the IPv4 address inside
// it instead of by the IPv6 block around it.

// blocked is netguard's verdict through its public entry point, with the
// default policy (no allow rules).
func blocked(a netip.Addr) bool {
	return errors.Is(defaultGuard.CheckAddr(a), ErrBlockedAddress)
}

var defaultGuard = New()

// newSampler returns a fixed-seed source, so every run tries the same
// addresses and a failure can be reproduced.
func newSampler() *rand.Rand { return rand.New(rand.NewPCG(12, 0x6e6574677561726)) }

// samples returns the addresses of p worth trying: the network address, the
// last address (an IPv4 prefix's broadcast address), their neighbours
// inside p, the middle, and n more drawn from rng.
func samples(p netip.Prefix, rng *rand.Rand, n int) []netip.Addr {
	p = p.Masked()
	first, last := p.Addr(), lastOf(p)
	out := []netip.Addr{first, last}
	if first != last {
		out = append(out, first.Next(), last.Prev(), withBit(first, p.Bits()))
	}
	for range n {
		out = append(out, randomIn(p, rng))
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out)
}

// lastOf is the highest address of p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// withBit returns a with bit i (from the left) set; for a prefix's network
// address and i its length, that is the first address of its upper half.
func withBit(a netip.Addr, i int) netip.Addr {
	b := a.AsSlice()
	b[i/8] |= 0x80 >> (i % 8)
	r, _ := netip.AddrFromSlice(b)
	return r
}

// randomIn draws an address of p: p's bits, then random ones.
func randomIn(p netip.Prefix, rng *rand.Rand) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		if rng.IntN(2) == 1 {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// publicV4 is an address every source admits (Google's resolver). It fills
// the other end of a Teredo address so that only the end under test decides.
var publicV4 = netip.MustParseAddr("8.8.8.8")

// listedRange is a range the comparison treats specially, and why.
type listedRange struct {
	prefix netip.Prefix
	why    string
}

// v6Form is one IPv6 spelling of an IPv4 address.
type v6Form struct {
	name string
	addr netip.Addr
}

// localFill is a local-use NAT64 address whose every reading is 8.8.8.8
// (byte 8, the u-octet, is zero).
const localFill = "64:ff9b:1:808:8:808:808:808"

// embeddings returns every IPv6 form of v that netguard judges by v: mapped,
// IPv4-compatible, NAT64 (well-known prefix), local-use NAT64 at each RFC
// 6052 prefix length, 6to4, and both ends of Teredo.
func embeddings(v netip.Addr) []v6Form {
	x := v.As4()
	put := func(base string, at [4]int) netip.Addr {
		b := netip.MustParseAddr(base).As16()
		for i, o := range at {
			b[o] = x[i]
		}
		return netip.AddrFrom16(b)
	}
	pub := publicV4.As4()
	teredo := func(server, client [4]byte) netip.Addr {
		b := [16]byte{0x20, 0x01, 0, 0, server[0], server[1], server[2], server[3], 0x80, 0, 0x63, 0xbf}
		for i := range client {
			b[12+i] = client[i] ^ 0xff
		}
		return netip.AddrFrom16(b)
	}
	return []v6Form{
		{"mapped", netip.AddrFrom16(v.As16())},
		{"IPv4-compatible", put("::", [4]int{12, 13, 14, 15})},
		{"NAT64", put("64:ff9b::", [4]int{12, 13, 14, 15})},
		// The bytes around v are 8s, so that the other readings are
		// mostly public and v's reading alone decides.
		{"local-use NAT64 /96", put(localFill, [4]int{12, 13, 14, 15})},
		{"local-use NAT64 /64", put(localFill, [4]int{9, 10, 11, 12})},
		{"local-use NAT64 /56", put(localFill, [4]int{7, 9, 10, 11})},
		{"local-use NAT64 /48", put(localFill, [4]int{6, 7, 9, 10})},
		{"6to4", put("2002::1", [4]int{2, 3, 4, 5})},
		{"Teredo server", teredo(x, pub)},
		{"Teredo client", teredo(pub, x)},
	}
}

// embeddedRule is a block where netguard judges an address by the IPv4
// address(es) inside it. Both sources deny each of these blocks whole; the
// tests accept netguard's narrower verdict exactly there, and only if it
// matches the source's verdict on the embedded address.
type embeddedRule struct {
	prefix netip.Prefix
	why    string
	// readings are the IPv4 addresses the packets may end up at.
	readings func(b [16]byte) []netip.Addr
}

func at(b [16]byte, i, j, k, l int) netip.Addr {
	return netip.AddrFrom4([4]byte{b[i], b[j], b[k], b[l]})
}

// embeddedRules are netguard's deliberate differences for embedded forms,
// most specific first (Teredo lies inside 2001::/23, which stays blocked).
var embeddedRules = []embeddedRule{
	{
		netip.MustParsePrefix("::ffff:0:0/96"),
		// The sources deny it as IPv6 outside 2000::/3 (ssrf) or as not
		// globally reachable (IANA). But it is no IPv6 destination: Go
		// dials a mapped address over IPv4, to the address inside it.
		"IPv4-mapped: Go dials the IPv4 address inside it",
		func(b [16]byte) []netip.Addr { return []netip.Addr{at(b, 12, 13, 14, 15)} },
	},
	{
		netip.MustParsePrefix("::/96"),
		// Deprecated (RFC 4291 §2.5.5.1) and outside 2000::/3. Only an
		// automatic tunnel carries it, and that delivers it to the IPv4
		// address inside; :: and ::1 embed 0.0.0.0 and 0.0.0.1, both in
		// 0.0.0.0/8, so they stay blocked.
		"IPv4-compatible: only an automatic tunnel to the IPv4 address inside carries it",
		func(b [16]byte) []netip.Addr { return []netip.Addr{at(b, 12, 13, 14, 15)} },
	},
	{
		netip.MustParsePrefix("64:ff9b::/96"),
		// IANA marks it globally reachable; ssrf denies it unless allowed
		// with its IPv6NAT64Prefix, and warns that allowing it admits
		// 64:ff9b::7f00:1. netguard admits it so that an IPv6-only host
		// behind DNS64+NAT64 can reach IPv4 sites, and closes that hole by
		// judging the embedded address (RFC 6052 also forbids translating
		// non-global IPv4 addresses through this prefix).
		"NAT64 well-known prefix: the translator delivers to the IPv4 address inside",
		func(b [16]byte) []netip.Addr { return []netip.Addr{at(b, 12, 13, 14, 15)} },
	},
	{
		netip.MustParsePrefix("64:ff9b:1::/48"),
		// RFC 8215 local-use translation prefix: not globally reachable
		// (IANA), outside 2000::/3 (ssrf). It only reaches the operator's
		// own translator, which maps it to IPv4 with an RFC 6052 prefix
		// of length /48, /56, /64 or /96 carved from the /48. The length
		// is not visible in the address, so netguard admits it only when
		// every reading is an admitted IPv4 address.
		"local-use NAT64: admitted only if every RFC 6052 reading is",
		func(b [16]byte) []netip.Addr {
			// RFC 6052 §2.2, written out rather than taken from addr.go:
			// byte 8 (the u-octet) is always skipped.
			return []netip.Addr{at(b, 6, 7, 9, 10), at(b, 7, 9, 10, 11), at(b, 9, 10, 11, 12), at(b, 12, 13, 14, 15)}
		},
	},
	{
		netip.MustParsePrefix("2002::/16"),
		// IANA: globally reachable N/A; ssrf denies the block. A 6to4
		// packet goes through a relay to the IPv4 host in bytes 2-5, so
		// that host decides.
		"6to4: delivered to the IPv4 host in bytes 2-5",
		func(b [16]byte) []netip.Addr { return []netip.Addr{at(b, 2, 3, 4, 5)} },
	},
	{
		netip.MustParsePrefix("2001::/32"),
		// IANA: globally reachable N/A; ssrf denies all of 2001::/23.
		// Both ends of a Teredo tunnel are IPv4 hosts: the server in
		// bytes 4-7, the client bit-inverted in bytes 12-15.
		"Teredo: both IPv4 ends (server, inverted client) decide",
		func(b [16]byte) []netip.Addr {
			c := at(b, 12, 13, 14, 15).As4()
			for i := range c {
				c[i] ^= 0xff
			}
			return []netip.Addr{at(b, 4, 5, 6, 7), netip.AddrFrom4(c)}
		},
	},
}

// expectWith is the verdict a source implies for a once netguard's
// deliberate embedded-form rules are applied: an address inside one of
// embeddedRules is blocked when any of its readings is (as v4 judges IPv4
// addresses); any other address is judged by base. rule names the
// embedded rule used, "" if none.
func expectWith(a netip.Addr, base, v4 func(netip.Addr) bool) (bool, string) {
	if a.Is6() {
		for _, r := range embeddedRules {
			if r.prefix.Contains(a) {
				for _, v := range r.readings(a.As16()) {
					if v4(v) {
						return true, r.why
					}
				}
				return false, r.why
			}
		}
	}
	return base(a), ""
}
