package netguard

import (
	"errors"
	"go/parser"
	"go/token"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// accept marks a row that must pass Preflight (host is then the expected
// Target.Host).
var accept error

type preflightRow struct {
	id   string // ssrf.md §2 item number
	url  string
	want error  // sentinel, or accept
	host string // expected Target.Host when want is accept
}

// catalogue is ssrf.md §2, every row that can be decided without DNS.
// TestFetchRefusesCatalogueOffline runs its refusals through Fetch to show
// that none of them costs a DNS query or a socket.
//
// The rows that need DNS or a socket live in dial_test.go
// (TestDialCatalogue: #71, #74-#82) and client_test.go; #91, the port
// policy, is decided here and again at dial time (TestPortPolicy). #93's
// "CRLF stays percent-encoded on the wire" half is TestFetchCRLFStaysEncoded.
var catalogue = []preflightRow{
	// §2.1 Scheme.
	{"1", "file:///etc/passwd", ErrScheme, ""},
	{"2", "file://localhost/etc/passwd", ErrScheme, ""},
	{"3", "gopher://127.0.0.1:6379/_INFO", ErrScheme, ""},
	{"4", "dict://127.0.0.1:11211/stats", ErrScheme, ""},
	{"5", "ftp://example.com/file.pdf", ErrScheme, ""},
	{"6", "javascript:alert(1)", ErrScheme, ""},
	{"7", "data:text/html,<script>alert(1)</script>", ErrScheme, ""},
	{"8", "jar:http://127.0.0.1!/", ErrScheme, ""},
	{"8", "netdoc:///etc/passwd", ErrScheme, ""},
	{"8", "ldap://127.0.0.1/", ErrScheme, ""},
	{"8", "sftp://x/", ErrScheme, ""},
	{"8", "tftp://x/", ErrScheme, ""},
	{"9", "ws://example.com/", ErrScheme, ""},
	{"9", "wss://example.com/", ErrScheme, ""},
	{"10", "//example.com/path", ErrScheme, ""},
	{"11", "http:example.com", ErrMalformed, ""},
	{"11", "http:/example.com/", ErrMalformed, ""},
	{"11", "http:///example.com/", ErrMalformed, ""},
	{"12", `https:\\example.com\`, ErrMalformed, ""},
	{"13", "HtTp://ExAmPlE.CoM:443/", accept, "example.com"},

	// §2.2 Userinfo and authority confusion.
	{"14", "http://user:pass@example.com/", ErrUserinfo, ""},
	{"15", "http://user@example.com/", ErrUserinfo, ""},
	{"16", "http://@example.com/", ErrUserinfo, ""},
	{"16", "http://:@example.com/", ErrUserinfo, ""},
	{"17", "http://example.com@127.0.0.1/", ErrUserinfo, ""},
	{"18", "http://example.com:80@127.0.0.1/", ErrUserinfo, ""},
	{"19", "http://example.com%2f@127.0.0.1/", ErrUserinfo, ""},
	{"19", "http://example.com;@127.0.0.1/", ErrUserinfo, ""},
	{"20", `http://127.1.1.1:80\@127.2.2.2:80/`, ErrMalformed, ""},
	{"20", `http://example.com\@127.0.0.1/`, ErrMalformed, ""},
	{"21", "http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", ErrMalformed, ""},
	{"22", "http://example.com#@127.0.0.1/", accept, "example.com"},
	{"23", "http://example.com?@127.0.0.1/", accept, "example.com"},
	{"24", "http://[::1]#@evil.com/", ErrBlockedAddress, ""},
	{"25", "http://http://evil.com/", ErrMalformed, ""},

	// §2.3 IPv4 literals and alternative spellings.
	{"26", "http://127.0.0.1/", ErrBlockedAddress, ""},
	{"27", "http://127.0.0.2/", ErrBlockedAddress, ""},
	{"27", "http://127.127.127.127/", ErrBlockedAddress, ""},
	{"27", "http://127.255.255.254/", ErrBlockedAddress, ""},
	{"27", "http://127.0.0.0/", ErrBlockedAddress, ""},
	{"28", "http://127.1/", ErrNonCanonicalIP, ""},
	{"28", "http://127.0.1/", ErrNonCanonicalIP, ""},
	{"29", "http://0/", ErrNonCanonicalIP, ""},
	{"30", "http://0.0.0.0/", ErrBlockedAddress, ""},
	{"30", "http://0.0.0.0:22/", ErrBlockedAddress, ""},
	{"31", "http://0.1.2.3/", ErrBlockedAddress, ""},
	{"32", "http://2130706433/", ErrNonCanonicalIP, ""},
	{"33", "http://0x7f000001/", ErrNonCanonicalIP, ""},
	{"33", "http://0x7f.0.0.1/", ErrNonCanonicalIP, ""},
	{"33", "http://0x7f.1/", ErrNonCanonicalIP, ""},
	{"33", "http://0X7F000001/", ErrNonCanonicalIP, ""},
	{"34", "http://0177.0.0.1/", ErrNonCanonicalIP, ""},
	{"34", "http://0177.1/", ErrNonCanonicalIP, ""},
	{"34", "http://017700000001/", ErrNonCanonicalIP, ""},
	{"35", "http://127.000.000.001/", ErrNonCanonicalIP, ""},
	{"36", "http://0177.0x0.0x0.0x1/", ErrNonCanonicalIP, ""},
	{"37", "http://425.510.425.510/", ErrNonCanonicalIP, ""},
	{"37", "http://7147006462/", ErrNonCanonicalIP, ""},
	{"37", "http://0x41414141A9FEA9FE/", ErrNonCanonicalIP, ""},
	{"38", "http://255.255.255.255/", ErrBlockedAddress, ""},
	{"38", "http://4294967295/", ErrNonCanonicalIP, ""},
	{"38", "http://0xffffffff/", ErrNonCanonicalIP, ""},
	{"38", "http://0377.0377.0377.0377/", ErrNonCanonicalIP, ""},
	{"38", "http://0xff.0xff.0xff.0xff/", ErrNonCanonicalIP, ""},
	{"38", "http://0xBaaaaaaaaaaaaaaaaffffffff/", ErrNonCanonicalIP, ""},
	{"39", "http://169.254.169.254/latest/meta-data/", ErrBlockedAddress, ""},
	{"39", "http://169.254.170.2/v2/credentials/x", ErrBlockedAddress, ""},
	{"40", "http://2852039166/", ErrNonCanonicalIP, ""},
	{"40", "http://0xA9FEA9FE/", ErrNonCanonicalIP, ""},
	{"40", "http://0251.0376.0251.0376/", ErrNonCanonicalIP, ""},
	{"40", "http://0251.254.169.254/", ErrNonCanonicalIP, ""},
	{"41", "http://100.100.100.200/latest/meta-data/", ErrBlockedAddress, ""},
	{"41", "http://100.63.255.255/", accept, "100.63.255.255"},
	{"41", "http://100.128.0.0/", accept, "100.128.0.0"},
	{"42", "http://192.0.0.192/latest/", ErrBlockedAddress, ""},
	{"43", "http://168.63.129.16/", ErrBlockedAddress, ""},
	{"44", "http://10.0.0.1/", ErrBlockedAddress, ""},
	{"44", "http://172.16.0.1/", ErrBlockedAddress, ""},
	{"44", "http://172.31.255.255/", ErrBlockedAddress, ""},
	{"44", "http://192.168.1.1/", ErrBlockedAddress, ""},
	{"44", "http://172.15.255.255/", accept, "172.15.255.255"},
	{"44", "http://172.32.0.0/", accept, "172.32.0.0"},
	{"45", "http://198.18.0.1/", ErrBlockedAddress, ""},
	{"45", "http://192.0.2.1/", ErrBlockedAddress, ""},
	{"45", "http://198.51.100.1/", ErrBlockedAddress, ""},
	{"45", "http://203.0.113.1/", ErrBlockedAddress, ""},
	{"46", "http://224.0.0.1/", ErrBlockedAddress, ""},
	{"46", "http://239.255.255.250/", ErrBlockedAddress, ""},
	{"47", "http://240.0.0.1/", ErrBlockedAddress, ""},
	{"48", "http://1.1.1.1.1/", ErrNonCanonicalIP, ""},
	{"48", "http://8.8.8.8.8/", ErrNonCanonicalIP, ""},
	// #49: ssrf.md suggests E_BLOCKED after IDNA mapping; the brief makes
	// any IP literal not written as an ASCII dotted quad non-canonical,
	// which also refuses them before DNS (and whatever they map to).
	{"49", "http://１２７.０.０.１/", ErrNonCanonicalIP, ""},
	{"49", "http://①②⑦.⓪.⓪.①/", ErrNonCanonicalIP, ""},
	{"49", "http://127。0。0。1/", ErrNonCanonicalIP, ""},
	{"49", "http://８.８.８.８/", ErrNonCanonicalIP, ""},
	{"49", "http://127.0.0.1./", ErrNonCanonicalIP, ""},
	{"50", "http://%31%32%37.0.0.1/", ErrMalformed, ""},
	{"50", "http://127%2e0%2e0%2e1/", ErrMalformed, ""},
	{"50", "http://ex%41mple.com/", ErrMalformed, ""},

	// §2.4 IPv6 literals.
	{"51", "http://[::1]/", ErrBlockedAddress, ""},
	{"51", "http://[0000::1]/", ErrBlockedAddress, ""},
	{"51", "http://[0:0:0:0:0:0:0:1]/", ErrBlockedAddress, ""},
	{"52", "http://[::]/", ErrBlockedAddress, ""},
	{"53", "http://[::ffff:127.0.0.1]/", ErrBlockedAddress, ""},
	{"53", "http://[::ffff:7f00:1]/", ErrBlockedAddress, ""},
	{"53", "http://[0:0:0:0:0:ffff:127.0.0.1]/", ErrBlockedAddress, ""},
	{"54", "http://[::ffff:169.254.169.254]/", ErrBlockedAddress, ""},
	{"54", "http://[::ffff:a9fe:a9fe]/", ErrBlockedAddress, ""},
	{"54", "http://[::ffff:10.0.0.1]/", ErrBlockedAddress, ""},
	{"54", "http://[::ffff:0.0.0.0]/", ErrBlockedAddress, ""},
	{"55", "http://[::127.0.0.1]/", ErrBlockedAddress, ""},
	{"56", "http://[64:ff9b::7f00:1]/", ErrBlockedAddress, ""},
	{"56", "http://[64:ff9b::a9fe:a9fe]/", ErrBlockedAddress, ""},
	{"56", "http://[64:ff9b:1::a00:1]/", ErrBlockedAddress, ""},
	{"57", "http://[2002:7f00:1::]/", ErrBlockedAddress, ""},
	{"57", "http://[2002:a9fe:a9fe::]/", ErrBlockedAddress, ""},
	{"57", "http://[2002:6464:64c8::]/", ErrBlockedAddress, ""},
	{"58", "http://[2001::80ff:fffe]/", ErrBlockedAddress, ""},
	{"58", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", ErrBlockedAddress, ""},
	{"59", "http://[fe80::1]/", ErrBlockedAddress, ""},
	{"59", "http://[fe80::c800:eff:fe74:8]/", ErrBlockedAddress, ""},
	{"60", "http://[fe80::1%25eth0]/", ErrMalformed, ""},
	{"60", "http://[::1%25lo]/", ErrMalformed, ""},
	{"60", "http://[::ffff:127.0.0.1%25eth0]/", ErrMalformed, ""},
	{"60", "http://[2606:4700::1111%25eth0]/", ErrMalformed, ""},
	{"61", "http://[fe80::1%eth0]/", ErrMalformed, ""},
	{"62", "http://[fc00::1]/", ErrBlockedAddress, ""},
	{"62", "http://[fd00::1]/", ErrBlockedAddress, ""},
	{"62", "http://[fd00:ec2::254]/", ErrBlockedAddress, ""},
	{"63", "http://[fec0::1]/", ErrBlockedAddress, ""},
	{"63", "http://[feef::1]/", ErrBlockedAddress, ""},
	{"63", "http://[fee2::]/", ErrBlockedAddress, ""},
	{"64", "http://[ff02::1]/", ErrBlockedAddress, ""},
	{"64", "http://[ff05::1:3]/", ErrBlockedAddress, ""},
	{"65", "http://[100::1]/", ErrBlockedAddress, ""},
	{"65", "http://[2001:db8::1]/", ErrBlockedAddress, ""},
	{"65", "http://[3fff::1]/", ErrBlockedAddress, ""},
	{"65", "http://[5f00::1]/", ErrBlockedAddress, ""},
	{"66", "http://[127.0.0.1]/", ErrMalformed, ""},
	{"66", "http://[v1.fe80::1]/", ErrMalformed, ""},
	{"66", "http://[::1/", ErrMalformed, ""},
	{"66", "http://[::1]x/", ErrMalformed, ""},
	{"67", "http://[::1]:80:80/", ErrMalformed, ""},
	{"67", "http://127.0.0.1:80:80/", ErrMalformed, ""},
	{"67", "http://example.com:80:80/", ErrMalformed, ""},
	{"68", "http://[2606:4700:4700::1111]/", accept, "2606:4700:4700::1111"},

	// §2.5 Host names (the parts decidable without DNS).
	{"69", "http://localhost/", ErrBlockedHost, ""},
	{"69", "http://LOCALHOST/", ErrBlockedHost, ""},
	{"69", "http://localhost./", ErrBlockedHost, ""},
	{"69", "http://localhost.localdomain/", ErrBlockedHost, ""},
	{"69", "http://foo.localhost/", ErrBlockedHost, ""},
	{"69", "http://localhost:8080/", ErrBlockedHost, ""},
	{"70", "http://LOCALHOST．/", ErrBlockedHost, ""},
	{"71", "http://ip6-localhost/", ErrBlockedHost, ""},
	{"71", "http://ip6-loopback/", ErrBlockedHost, ""},
	{"72", "http://metadata/", ErrBlockedHost, ""},
	{"72", "http://instance-data/", ErrBlockedHost, ""},
	{"72", "http://intranet/", ErrBlockedHost, ""},
	{"72", "http://http/", ErrBlockedHost, ""},
	{"72", "http://metadata./", ErrBlockedHost, ""},
	{"73", "http://metadata.google.internal/", ErrBlockedHost, ""},
	{"73", "http://x.internal/", ErrBlockedHost, ""},
	{"73", "http://x.local/", ErrBlockedHost, ""},
	{"73", "http://x.home.arpa/", ErrBlockedHost, ""},
	{"73", "http://kubernetes.default.svc.cluster.local/", ErrBlockedHost, ""},
	{"73", "http://printer.LAN/", ErrBlockedHost, ""},
	{"73", "http://fileserver.corp./", ErrBlockedHost, ""},
	{"73", "http://wiki.intranet/", ErrBlockedHost, ""},
	{"74", "http://127.0.0.1.nip.io/", accept, "127.0.0.1.nip.io"}, // refused at dial: TestDialCatalogue
	{"74", "http://localtest.me/", accept, "localtest.me"},         // refused at dial: TestDialCatalogue
	{"83", "http://ⓔⓧⓐⓜⓟⓛⓔ.ⓒⓞⓜ/", accept, "example.com"},
	{"83", "http://exаmple.com/", accept, "xn--exmple-4nf.com"},
	{"83", "http://mißile.com/", accept, "xn--miile-mqa.com"},
	{"84", "http://example.com\u00ad/", ErrMalformed, ""},
	{"84", "http://ex\u200bample.com/", ErrMalformed, ""},
	{"84", "http://exam\ufe0fple.com/", ErrMalformed, ""},
	{"85", "http://" + strings.Repeat("a.", 127) + "com/", ErrMalformed, ""},
	{"85", "http://" + strings.Repeat("a", 64) + ".com/", ErrMalformed, ""},
	{"85", "http://" + strings.Repeat("a", 63) + ".com/", accept, strings.Repeat("a", 63) + ".com"},
	{"85", "http://" + strings.Repeat("abcdefghi.", 110) + "com/", ErrMalformed, ""},
	{"85", "http://a..b.com/", ErrMalformed, ""},
	{"85", "http://.example.com/", ErrMalformed, ""},
	{"86", "http://-example.com/", ErrMalformed, ""},
	{"86", "http://exam_ple.com/", accept, "exam_ple.com"},
	{"86", "http://exa$mple.com/", ErrMalformed, ""},
	{"86", "http://exa<mple.com/", ErrMalformed, ""},
	{"87", "http://example.123/", ErrNonCanonicalIP, ""},
	{"87", "http://1.2.3.4.5/", ErrNonCanonicalIP, ""},
	{"87", "http://example.0x1f/", ErrNonCanonicalIP, ""},

	// §2.6 Port, length, control characters and encoding.
	{"88", "http://example.com:0/", ErrMalformed, ""},
	{"88", "http://example.com:65536/", ErrMalformed, ""},
	{"88", "http://example.com:99999999999999999999/", ErrMalformed, ""},
	{"88", "http://example.com:65535/", ErrBlockedPort, ""}, // valid, but see #91
	{"89", "http://example.com:+80/", ErrMalformed, ""},
	{"89", "http://example.com:-1/", ErrMalformed, ""},
	{"89", "http://example.com:80a/", ErrMalformed, ""},
	{"89", "http://example.com:/", ErrMalformed, ""},
	{"90", "http://example.com:080/", ErrMalformed, ""},
	{"91", "http://example.com:22/", ErrBlockedPort, ""},
	{"91", "http://example.com:25/", ErrBlockedPort, ""},
	{"91", "http://example.com:6379/", ErrBlockedPort, ""},
	{"91", "http://example.com:11211/", ErrBlockedPort, ""},
	{"91", "https://example.com:2375/", ErrBlockedPort, ""},
	{"91", "http://example.com:8080/", ErrBlockedPort, ""},
	{"91", "http://example.com:443/", accept, "example.com"},
	{"91", "https://example.com:80/", accept, "example.com"},
	{"92", "http://example.com/\r\nX: y", ErrMalformed, ""},
	{"92", "http://exa\tmple.com/", ErrMalformed, ""},
	{"92", "http://example.com\x00.evil/", ErrMalformed, ""},
	{"92", "http://127.0.0.1 /", ErrMalformed, ""},
	{"92", "http://example.com/a\x7fb", ErrMalformed, ""},
	{"92", "  https://example.com/ \n", accept, "example.com"},
	{"93", "http://example.com/%0d%0aX-Injected:%20yes", accept, "example.com"},
	{"94", "https://example.com/" + strings.Repeat("a", DefaultMaxURLLength), ErrMalformed, ""},
	{"95", "https://example.com/ü?q=ü", accept, "example.com"},
	{"96", "/path", ErrMalformed, ""},
	{"96", "?q", ErrMalformed, ""},
	{"96", "#frag", ErrMalformed, ""},
	{"96", "example.com/x", ErrMalformed, ""},
	{"96", "", ErrMalformed, ""},
	{"96", "https://example.com/\xff", ErrMalformed, ""},
}

func TestPreflightCatalogue(t *testing.T) {
	g := New()
	for _, row := range catalogue {
		t.Run("#"+row.id+" "+strconv.Quote(clip(row.url)), func(t *testing.T) {
			target, err := g.Preflight(row.url)
			if errors.Is(row.want, accept) {
				if err != nil {
					t.Fatalf("Preflight(%q) = %v, want accept", row.url, err)
				}
				if target.Host != row.host {
					t.Errorf("Host = %q, want %q", target.Host, row.host)
				}
				return
			}
			if !errors.Is(err, row.want) {
				t.Fatalf("Preflight(%q) = %v, want %v", row.url, err, row.want)
			}
			if target != (Target{}) {
				t.Errorf("Preflight returned a Target with an error: %+v", target)
			}
		})
	}
}

func TestPreflightTarget(t *testing.T) {
	g := New(AllowPorts(8080, 8443))
	tests := []struct {
		in   string
		want Target
	}{
		{"HtTp://ExAmPlE.CoM:443/", Target{URL: "http://example.com:443/", Host: "example.com", Port: "443"}},
		{"https://Example.com", Target{URL: "https://example.com/", Host: "example.com", Port: "443"}},
		{"https://example.com:443/a", Target{URL: "https://example.com/a", Host: "example.com", Port: "443"}},
		{"http://example.com:8080/a?b#c", Target{URL: "http://example.com:8080/a?b#c", Host: "example.com", Port: "8080"}},
		{"http://example.com./x", Target{URL: "http://example.com./x", Host: "example.com.", Port: "80"}},
		{"http://93.184.216.34/", Target{URL: "http://93.184.216.34/", Host: "93.184.216.34", Port: "80",
			Addr: netip.MustParseAddr("93.184.216.34")}},
		{"https://[2606:4700::1111]:8443/", Target{URL: "https://[2606:4700::1111]:8443/", Host: "2606:4700::1111", Port: "8443",
			Addr: netip.MustParseAddr("2606:4700::1111")}},
		{"https://[2606:4700:0:0:0:0:0:1111]/", Target{URL: "https://[2606:4700::1111]/", Host: "2606:4700::1111", Port: "443",
			Addr: netip.MustParseAddr("2606:4700::1111")}},
		{"http://ⓔⓧⓐⓜⓟⓛⓔ.ⓒⓞⓜ/", Target{URL: "http://example.com/", Host: "example.com", Port: "80"}},
		{"https://example.com/ü?q=ü", Target{URL: "https://example.com/%C3%BC?q=%C3%BC", Host: "example.com", Port: "443"}},
		{"http://example.com/%0d%0aX-Injected:%20yes", Target{URL: "http://example.com/%0d%0aX-Injected:%20yes", Host: "example.com", Port: "80"}},
		{`http://example.com/a\b`, Target{URL: "http://example.com/a/b", Host: "example.com", Port: "80"}},
		{"http://example.com#@127.0.0.1/", Target{URL: "http://example.com/#@127.0.0.1/", Host: "example.com", Port: "80"}},
	}
	for _, tc := range tests {
		got, err := g.Preflight(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Preflight(%q)\n got  %+v, %v\n want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestPreflightAllowCIDR(t *testing.T) {
	// An address rule does not open every port of the address.
	if _, err := New(AllowCIDR(netip.MustParsePrefix("127.0.0.1/32"))).Preflight("http://127.0.0.1:8080/"); !errors.Is(err, ErrBlockedPort) {
		t.Errorf("AllowCIDR alone, port 8080: %v, want ErrBlockedPort", err)
	}
	g := New(AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), AllowPorts(8080))
	if got, err := g.Preflight("http://127.0.0.1:8080/ok"); err != nil || got.Addr != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("allowed loopback: %+v, %v", got, err)
	}
	if _, err := g.Preflight("http://127.0.0.2:8080/ok"); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("127.0.0.2 = %v, want ErrBlockedAddress", err)
	}
	if _, err := g.Preflight("http://[::ffff:127.0.0.1]:8080/"); err != nil {
		t.Errorf("mapped form of an allowed address = %v, want ok", err)
	}
	// Allow rules concern addresses; names and spellings stay refused.
	for raw, want := range map[string]error{
		"http://localhost:8080/":         ErrBlockedHost,
		"http://127.1:8080/":             ErrNonCanonicalIP,
		"http://u@127.0.0.1:8080/":       ErrUserinfo,
		"http://[::1]:8080/":             ErrBlockedAddress,
		"http://[64:ff9b::7f00:1]:8080/": ErrBlockedAddress,
	} {
		if _, err := g.Preflight(raw); !errors.Is(err, want) {
			t.Errorf("Preflight(%q) = %v, want %v", raw, err, want)
		}
	}
}

func TestPreflightDomainAllowlist(t *testing.T) {
	g := New(DomainAllowlist("example.com", ".Docs.Example.ORG.", "ⓔⓧⓐⓜⓟⓛⓔ.net", "93.184.216.34"))
	tests := []struct {
		url  string
		want error
	}{
		{"https://example.com/", accept},
		{"https://a.example.com/", accept},
		{"https://a.b.example.com./", accept},
		{"https://EXAMPLE.COM/", accept},
		{"https://badexample.com/", ErrNotAllowlisted},
		{"https://example.com.evil.net/", ErrNotAllowlisted},
		{"https://com/", ErrBlockedHost},
		{"https://docs.example.org/", accept},
		{"https://x.docs.example.org/", accept},
		{"https://example.org/", ErrNotAllowlisted},
		{"https://www.example.net/", accept},
		{"https://93.184.216.34/", accept},
		{"https://1.1.1.1/", ErrNotAllowlisted},
		{"https://[2606:4700::1111]/", ErrNotAllowlisted},
		// The allowlist only narrows: other rules still apply.
		{"https://u@example.com/", ErrUserinfo},
		{"https://x.example.com:0/", ErrMalformed},
	}
	for _, tc := range tests {
		_, err := g.Preflight(tc.url)
		if errors.Is(tc.want, accept) && err != nil || !errors.Is(tc.want, accept) && !errors.Is(err, tc.want) {
			t.Errorf("Preflight(%q) = %v, want %v", tc.url, err, tc.want)
		}
	}

	// An allowlist whose every entry is unusable admits nothing.
	closed := New(DomainAllowlist("", "..", "a..b\x00"))
	if _, err := closed.Preflight("https://example.com/"); !errors.Is(err, ErrNotAllowlisted) {
		t.Errorf("empty allowlist: %v, want ErrNotAllowlisted", err)
	}
}

func TestPreflightMaxURLLength(t *testing.T) {
	g := New(MaxURLLength(30))
	if _, err := g.Preflight("https://example.com/123456789"); err != nil { // 29 bytes
		t.Errorf("29 bytes: %v", err)
	}
	if _, err := g.Preflight("https://example.com/1234567890a"); !errors.Is(err, ErrMalformed) { // 31 bytes
		t.Errorf("31 bytes: %v, want ErrMalformed", err)
	}
	if New(MaxURLLength(0)).maxURLLength != DefaultMaxURLLength {
		t.Error("MaxURLLength(0) should keep the default")
	}
	long := "https://example.com/" + strings.Repeat("a", DefaultMaxURLLength-len("https://example.com/"))
	if _, err := New().Preflight(long); err != nil {
		t.Errorf("exactly %d bytes: %v", DefaultMaxURLLength, err)
	}
	// The cap also holds for the encoded form, which is what is fetched.
	expands := "https://example.com/" + strings.Repeat("<", 1000)
	if _, err := New().Preflight(expands); !errors.Is(err, ErrMalformed) {
		t.Errorf("%d bytes that encode to %d: %v, want ErrMalformed", len(expands), len(expands)+2000, err)
	}
}

// Preflight errors go into logs. They may name the host, never the
// credentials, path, query or fragment.
func TestPreflightErrorsCarryNoSecrets(t *testing.T) {
	g := New(DomainAllowlist("example.com"))
	for _, raw := range []string{
		"http://user:SECRET@example.com/SECRET?SECRET#SECRET",
		"http://SECRET@127.0.0.1/",
		"http://localhost/SECRET?token=SECRET",
		"http://10.0.0.1/SECRET?token=SECRET",
		"http://example.org/SECRET?token=SECRET",
		"http://example.com/\nSECRET",
		"http://example.com:99999/SECRET",
		"gopher://SECRET@example.com/",
	} {
		_, err := g.Preflight(raw)
		if err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Preflight(%q) error = %v", raw, err)
		}
	}
}

// netguard stands alone, and the no-network half (redaction, preflight,
// classification, pin parsing) cannot reach a resolver: none of its files
// imports net. The network half (dial.go, client.go, ...) builds on it.
func TestImports(t *testing.T) {
	noNetwork := map[string]bool{"addr.go": true, "errors.go": true, "limits.go": true,
		"pin.go": true, "preflight.go": true, "redact.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/citegate/") {
				t.Errorf("%s imports %s", f, path)
			}
			if noNetwork[f] && (path == "net" || path == "net/http") {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

// FuzzPreflight checks that an accepted URL means the same thing when it is
// checked again in its canonical form (Target.URL is what gets fetched, so
// it must pass the same policy and name the same host), and that whatever
// is accepted is http(s), carries no userinfo, uses an allowed port, and,
// if its host is an IP literal, an address CheckAddr allows, whichever of
// the guard's or Go's parser reads it.
func FuzzPreflight(f *testing.F) {
	for _, row := range catalogue {
		f.Add(row.url)
	}
	g := New()
	f.Fuzz(func(t *testing.T, raw string) {
		target, err := g.Preflight(raw)
		if err != nil {
			if Reason(err) == "unclassified error" {
				t.Fatalf("Preflight(%q) = %v, which wraps no sentinel", raw, err)
			}
			return
		}
		again, err := g.Preflight(target.URL)
		if err != nil {
			t.Fatalf("Preflight(%q) accepted, but its URL %q is refused: %v", raw, target.URL, err)
		}
		if again != target {
			t.Fatalf("Preflight(%q) = %+v, but its URL gives %+v", raw, target, again)
		}
		if target.Addr.IsValid() && g.CheckAddr(target.Addr) != nil {
			t.Fatalf("Preflight(%q) accepted blocked address %s", raw, target.Addr)
		}
		if target.Port != "80" && target.Port != "443" {
			t.Fatalf("Preflight(%q) accepted port %s", raw, target.Port)
		}
		if !strings.HasPrefix(target.URL, "http://") && !strings.HasPrefix(target.URL, "https://") {
			t.Fatalf("Preflight(%q) accepted %q", raw, target.URL)
		}
		// Go's parser is the one that builds the request. It may refuse
		// what WHATWG accepts (a stray "%"); Fetch then fails safely. If it
		// accepts, it must see the same scheme, no userinfo, the same host.
		u, err := url.Parse(target.URL)
		if err != nil {
			return
		}
		if u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("Preflight(%q): Go reads %q as scheme %q, user %v", raw, target.URL, u.Scheme, u.User)
		}
		host := u.Hostname()
		if a, err := netip.ParseAddr(host); err == nil {
			if a != target.Addr || g.CheckAddr(a) != nil {
				t.Fatalf("Preflight(%q): Go dials %s, Preflight checked %v", raw, a, target.Addr)
			}
		} else if host != target.Host {
			t.Fatalf("Preflight(%q): Go dials %q, Preflight checked %q", raw, host, target.Host)
		}
	})
}
