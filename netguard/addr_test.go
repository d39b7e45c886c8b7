package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

// Both sides of every boundary, written out by hand rather than derived from
// the tables under test, so a typo in a table shows up here.
func TestCheckAddrIPv4Boundaries(t *testing.T) {
	type row struct {
		addr    string
		blocked bool
	}
	rows := []row{
		{"0.0.0.0", true}, {"0.255.255.255", true}, {"1.0.0.0", false},
		{"9.255.255.255", false}, {"10.0.0.0", true}, {"10.255.255.255", true}, {"11.0.0.0", false},
		{"100.63.255.255", false}, {"100.64.0.0", true}, {"100.127.255.255", true}, {"100.128.0.0", false},
		{"126.255.255.255", false}, {"127.0.0.0", true}, {"127.255.255.255", true}, {"128.0.0.0", false},
		{"168.63.129.15", false}, {"168.63.129.16", true}, {"168.63.129.17", false},
		{"169.253.255.255", false}, {"169.254.0.0", true}, {"169.254.255.255", true}, {"169.255.0.0", false},
		{"172.15.255.255", false}, {"172.16.0.0", true}, {"172.31.255.255", true}, {"172.32.0.0", false},
		{"191.255.255.255", false}, {"192.0.0.0", true}, {"192.0.0.255", true}, {"192.0.1.0", false},
		{"192.0.1.255", false}, {"192.0.2.0", true}, {"192.0.2.255", true}, {"192.0.3.0", false},
		{"192.31.195.255", false}, {"192.31.196.0", true}, {"192.31.196.255", true}, {"192.31.197.0", false},
		{"192.52.192.255", false}, {"192.52.193.0", true}, {"192.52.193.255", true}, {"192.52.194.0", false},
		{"192.88.98.255", false}, {"192.88.99.0", true}, {"192.88.99.255", true}, {"192.88.100.0", false},
		{"192.167.255.255", false}, {"192.168.0.0", true}, {"192.168.255.255", true}, {"192.169.0.0", false},
		{"192.175.47.255", false}, {"192.175.48.0", true}, {"192.175.48.255", true}, {"192.175.49.0", false},
		{"198.17.255.255", false}, {"198.18.0.0", true}, {"198.19.255.255", true}, {"198.20.0.0", false},
		{"198.51.99.255", false}, {"198.51.100.0", true}, {"198.51.100.255", true}, {"198.51.101.0", false},
		{"203.0.112.255", false}, {"203.0.113.0", true}, {"203.0.113.255", true}, {"203.0.114.0", false},
		{"223.255.255.255", false}, {"224.0.0.0", true}, {"239.255.255.255", true},
		{"240.0.0.0", true}, {"255.255.255.254", true}, {"255.255.255.255", true},
		// Cloud metadata services.
		{"169.254.169.254", true}, {"169.254.170.2", true}, {"100.100.100.200", true}, {"192.0.0.192", true},
		// Public controls.
		{"93.184.216.34", false}, {"1.1.1.1", false}, {"8.8.8.8", false},
	}
	g := New()
	for _, r := range rows {
		err := g.CheckAddr(netip.MustParseAddr(r.addr))
		if got := errors.Is(err, ErrBlockedAddress); got != r.blocked || (!r.blocked && err != nil) {
			t.Errorf("CheckAddr(%s) = %v, want blocked=%v", r.addr, err, r.blocked)
		}
	}
}

func TestCheckAddrIPv6(t *testing.T) {
	type row struct {
		addr    string
		blocked bool
		why     string
	}
	rows := []row{
		{"::", true, "unspecified"},
		{"::1", true, "loopback"},
		{"::2", true, "IPv4-compatible 0.0.0.2"},
		{"::7f00:1", true, "IPv4-compatible 127.0.0.1"},
		{"::a9fe:a9fe", true, "IPv4-compatible 169.254.169.254"},
		{"::808:808", false, "IPv4-compatible 8.8.8.8, judged as 8.8.8.8"},
		{"::ffff:127.0.0.1", true, "mapped loopback"},
		{"::ffff:0.0.0.0", true, "mapped unspecified"},
		{"::ffff:ffff:ffff", true, "mapped broadcast"},
		{"::ffff:8.8.8.8", false, "mapped public is its IPv4 address"},
		{"64:ff9b::7f00:1", true, "NAT64 of loopback"},
		{"64:ff9b::a9fe:a9fe", true, "NAT64 of metadata"},
		{"64:ff9b::ac1c:5", true, "NAT64 of 172.28.0.5"},
		{"64:ff9b::808:808", false, "NAT64 of 8.8.8.8"},
		{"64:ff9b::ffff:ffff", true, "NAT64 of broadcast"},
		{"64:ff9b:1::a00:1", true, "local-use NAT64, /96 reading 10.0.0.1"},
		{"64:ff9b:1:808:8:808:808:808", false, "local-use NAT64, every reading 8.8.8.8"},
		{"64:ff9b:1:a00:1:808:808:808", true, "local-use NAT64, /48 reading 10.0.1.8"},
		{"64:ff9b:c::1", true, "near miss of NAT64 is outside 2000::/3"},
		{"2002:7f00:1::", true, "6to4 of loopback"},
		{"2002:a9fe:a9fe::", true, "6to4 of metadata"},
		{"2002:6464:64c8::", true, "6to4 of 100.100.100.200"},
		{"2002:808:808::1", false, "6to4 of 8.8.8.8"},
		{"2001::80ff:fffe", true, "Teredo, client 127.0.0.1"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true, "Teredo, client 192.0.2.45"},
		{"2001:0:a00:1:8000:63bf:f7f7:f7f7", true, "Teredo, server 10.0.0.1"},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", false, "Teredo, public server and client 8.8.8.8"},
		{"2001:1::1", true, "IETF protocol assignments"},
		{"2001:2::1", true, "benchmarking"},
		{"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true, "last of 2001::/23"},
		{"2001:200::1", false, "first after 2001::/23"},
		{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false, "before documentation"},
		{"2001:db8::", true, "documentation"},
		{"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true, "documentation, last"},
		{"2001:db9::", false, "after documentation"},
		{"2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", false, "before AS112"},
		{"2620:4f:8000::", true, "AS112"},
		{"2620:4f:8000:ffff:ffff:ffff:ffff:ffff", true, "AS112, last"},
		{"2620:4f:8001::", false, "after AS112"},
		{"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "just below 2000::/3"},
		{"2000::", false, "first of 2000::/3"},
		{"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "before 3fff::/20"},
		{"3fff::", true, "documentation 3fff::/20"},
		{"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true, "documentation, last"},
		{"3fff:1000::", false, "after 3fff::/20"},
		{"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "last of 2000::/3"},
		{"4000::", true, "just above 2000::/3"},
		{"100::1", true, "discard"},
		{"5f00::1", true, "SRv6"},
		{"fc00::", true, "ULA"},
		{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "ULA, last"},
		{"fd00:ec2::254", true, "AWS metadata over IPv6"},
		{"fe80::1", true, "link-local"},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "link-local, last"},
		{"fec0::1", true, "site-local"},
		{"ff00::", true, "multicast"},
		{"ff02::1", true, "multicast all-nodes"},
		{"2606:4700::1111", false, "Cloudflare"},
		{"2606:4700:4700::1111", false, "Cloudflare DNS"},
		{"2001:4860:4860::8888", false, "Google DNS"},
	}
	g := New()
	for _, r := range rows {
		err := g.CheckAddr(netip.MustParseAddr(r.addr))
		if got := errors.Is(err, ErrBlockedAddress); got != r.blocked || (!r.blocked && err != nil) {
			t.Errorf("CheckAddr(%s) [%s] = %v, want blocked=%v", r.addr, r.why, err, r.blocked)
		}
	}
}

func TestCheckAddrZonesAndInvalid(t *testing.T) {
	g := New(AllowCIDR(netip.MustParsePrefix("::/0"), netip.MustParsePrefix("0.0.0.0/0")))
	for _, s := range []string{"fe80::1%eth0", "2606:4700::1111%eth0", "::ffff:127.0.0.1%lo"} {
		// Zones are refused before allow rules: no prefix can match them.
		if err := g.CheckAddr(netip.MustParseAddr(s)); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckAddr(%s) = %v, want ErrBlockedAddress", s, err)
		}
	}
	if err := g.CheckAddr(netip.Addr{}); !errors.Is(err, ErrMalformed) {
		t.Errorf("CheckAddr(zero Addr) = %v, want ErrMalformed", err)
	}
}

func TestAllowCIDR(t *testing.T) {
	g := New(AllowCIDR(
		netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("fd00::1234/120"), // not masked: AllowCIDR masks it
		netip.Prefix{},                          // invalid: ignored
	))
	rows := []struct {
		addr    string
		allowed bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.2", false},
		{"::ffff:127.0.0.1", true}, // the mapped form is the same destination
		{"64:ff9b::7f00:1", false}, // a NAT64 translator is not the local host
		{"2002:7f00:1::", false},   // nor is a 6to4 relay
		{"fd00::1201", true},
		{"fd00::1301", false},
		{"10.0.0.1", false},
		{"8.8.8.8", true},
	}
	for _, r := range rows {
		err := g.CheckAddr(netip.MustParseAddr(r.addr))
		if (err == nil) != r.allowed {
			t.Errorf("CheckAddr(%s) = %v, want allowed=%v", r.addr, err, r.allowed)
		}
	}
}

func TestCheckAddrErrorNamesRange(t *testing.T) {
	err := New().CheckAddr(netip.MustParseAddr("64:ff9b::a9fe:a9fe"))
	want := "netguard: 64:ff9b::a9fe:a9fe: NAT64 form of 169.254.169.254, in 169.254.0.0/16 (link-local (cloud metadata)): private/local target blocked by SSRF policy"
	if err == nil || err.Error() != want {
		t.Errorf("error text\n got  %v\n want %s", err, want)
	}
}

func TestReason(t *testing.T) {
	g := New(DomainAllowlist("example.com"))
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("boom"), "unclassified error"},
		{g.CheckAddr(netip.MustParseAddr("10.1.2.3")), "private/local target blocked by SSRF policy"},
		{preflightErr(g, "gopher://example.com/"), "disallowed protocol"},
		{preflightErr(g, "http://a b/"), "malformed URL"},
		{preflightErr(g, "http://u:p@example.com/"), "userinfo not allowed"},
		{preflightErr(g, "http://127.1/"), "non-canonical IP literal"},
		{preflightErr(g, "http://localhost/"), "blocked host name"},
		{preflightErr(g, "http://example.org/"), "host not in domain allowlist"},
	}
	for _, c := range cases {
		if got := Reason(c.err); got != c.want {
			t.Errorf("Reason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func preflightErr(g *Guard, raw string) error {
	_, err := g.Preflight(raw)
	return err
}
