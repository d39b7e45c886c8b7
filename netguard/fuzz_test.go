package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"testing"
)

// FuzzDialContext feeds DialContext arbitrary addresses and resolver
// answers. Whatever it does, the raw dialer may only ever be handed an IP
// literal that CheckAddr and the port policy allow, and for a name only if
// every answer was allowed.
func FuzzDialContext(f *testing.F) {
	f.Add("news.example.com:80", []byte{93, 184, 216, 34}, []byte{127, 0, 0, 1})
	f.Add("news.example.com:443", []byte{10, 0, 0, 1}, []byte{})
	f.Add("[::ffff:127.0.0.1]:80", []byte{}, []byte{})
	f.Add("1.1.1.1:80", []byte{}, []byte{})
	f.Add("x.example.com:80", []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1})
	f.Fuzz(func(t *testing.T, addr string, a1, a2 []byte) {
		var answers []netip.Addr
		for _, b := range [][]byte{a1, a2} {
			if a, ok := netip.AddrFromSlice(b); ok {
				answers = append(answers, a)
			}
		}
		var mu sync.Mutex
		var dialled []string
		g := New(
			WithResolver(resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) { return answers, nil })),
			WithDialContext(func(_ context.Context, _, addr string) (net.Conn, error) {
				mu.Lock()
				dialled = append(dialled, addr)
				mu.Unlock()
				return nil, errors.New("fuzz: no connections")
			}),
		)
		_, err := g.DialContext(context.Background(), "tcp", addr)
		if err == nil || Reason(err) == "unclassified error" {
			t.Fatalf("DialContext(%q) = %v", addr, err)
		}
		for _, d := range dialled {
			ap, err := netip.ParseAddrPort(d)
			if err != nil {
				t.Fatalf("raw dialer got %q, not an IP literal", d)
			}
			if g.CheckAddr(ap.Addr()) != nil || g.checkPort(strconv.Itoa(int(ap.Port()))) != nil {
				t.Fatalf("raw dialer got refused address %s", d)
			}
			host, _, _ := net.SplitHostPort(addr)
			if _, err := netip.ParseAddr(host); err == nil {
				continue // a literal: the resolver was not asked
			}
			for _, a := range answers {
				if g.CheckAddr(a) != nil {
					t.Fatalf("dialled %s although answer %s is blocked", d, a)
				}
			}
		}
	})
}

type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

// FuzzParseResolve: no panic, and whatever is accepted can be pinned and
// found again by DialContext.
func FuzzParseResolve(f *testing.F) {
	for _, s := range []string{"news.example.com:443:93.184.216.34", "example.com:443:[2606:4700::1111]", "a:1:::1", "x.y:80:[::ffff:1.2.3.4]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		host, port, addr, err := ParseResolve(spec)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseResolve(%q) = %v, want ErrMalformed", spec, err)
			}
			return
		}
		if port < 1 || port > 65535 || !addr.IsValid() || addr.Zone() != "" || checkLabels(host) != nil {
			t.Fatalf("ParseResolve(%q) = %q, %d, %v", spec, host, port, addr)
		}
		g := New(Pin(host, port, addr))
		if got, ok := g.pins[pinKey{host, port}]; !ok || got != addr {
			t.Fatalf("ParseResolve(%q) gave a pin DialContext cannot find: %q", spec, host)
		}
	})
}
