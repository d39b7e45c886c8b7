package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestInterleave(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"2001:db8::1", "2001:db8::2", "192.0.2.1", "192.0.2.2"}, []string{"2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2"}},
		{[]string{"192.0.2.1", "2001:db8::1", "192.0.2.2"}, []string{"192.0.2.1", "2001:db8::1", "192.0.2.2"}},
		{[]string{"2001:db8::1", "2001:db8::2"}, []string{"2001:db8::1", "2001:db8::2"}},
		{[]string{"192.0.2.1"}, []string{"192.0.2.1"}},
	} {
		if got := interleave(parseAddrs(tc.in...)); !slices.Equal(got, parseAddrs(tc.want...)) {
			t.Errorf("interleave(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// v6Path is a raw dialer for documentation addresses: its IPv6 behaves as
// the test says (hang until cancelled, fail at once, or connect) and its
// IPv4 connects; both lead to the loopback listener v4. It records each attempt with its start time.
type v6Path struct {
	mode  string // "hang", "unreachable" or "ok"
	v4    string // the listener's 127.0.0.1:port
	t0    time.Time
	mu    sync.Mutex
	tries []string
	at    []time.Duration
}

func (p *v6Path) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	p.mu.Lock()
	p.tries = append(p.tries, addr)
	p.at = append(p.at, time.Since(p.t0))
	p.mu.Unlock()
	ap := netip.MustParseAddrPort(addr)
	var d net.Dialer
	if ap.Addr().Is4() {
		return d.DialContext(ctx, network, p.v4)
	}
	switch p.mode {
	case "hang":
		<-ctx.Done()
		return nil, ctx.Err()
	case "unreachable":
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ENETUNREACH}
	}
	return d.DialContext(ctx, network, p.v4)
}

// Happy Eyeballs: IPv6 first; a hanging IPv6 path gives way to IPv4 after
// fallbackDelay, a failing one at once, a working one is used alone.
func TestHappyEyeballs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(okHandler))
	defer srv.Close()
	port := portOf(t, srv.Listener.Addr().String())
	for _, tc := range []struct {
		mode      string
		wantTries []string
		min, max  time.Duration
	}{
		{"hang", []string{"[2001:db8::1]", "192.0.2.10"}, fallbackDelay - 10*time.Millisecond, fallbackDelay + 200*time.Millisecond},
		{"unreachable", []string{"[2001:db8::1]", "192.0.2.10"}, 0, 150 * time.Millisecond},
		{"ok", []string{"[2001:db8::1]"}, 0, 150 * time.Millisecond},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			res := newStubResolver(t)
			res.set("dual.example.com", "2001:db8::1", "192.0.2.10")
			// The policy admits the two documentation addresses explicitly;
			// the test dialer maps them onto the loopback listener.
			p := &v6Path{mode: tc.mode, v4: srv.Listener.Addr().String()}
			g := New(AllowCIDR(netip.MustParsePrefix("2001:db8::1/128"), netip.MustParsePrefix("192.0.2.10/32")),
				AllowPorts(port), WithResolver(res), WithLimits(testLimits),
				WithDialContext(p.dial))
			start := time.Now()
			p.mu.Lock()
			p.t0 = start
			p.mu.Unlock()
			resp, err := g.Fetch(context.Background(), Request{URL: "http://dual.example.com:" + strconv.Itoa(port) + "/"})
			took := time.Since(start)
			if err != nil || string(resp.Body) != "ok" {
				t.Fatalf("Fetch = %v, %v", resp, err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			var hosts []string
			for _, a := range p.tries {
				h, _, _ := net.SplitHostPort(a)
				if netip.MustParseAddr(h).Is6() {
					h = "[" + h + "]"
				}
				hosts = append(hosts, h)
			}
			if !slices.Equal(hosts, tc.wantTries) {
				t.Errorf("tried %v, want %v", hosts, tc.wantTries)
			}
			if took < tc.min || took > tc.max {
				t.Errorf("connected after %v, want %v to %v (attempts at %v)", took, tc.min, tc.max, p.at)
			}
		})
	}
}

// Every answer is classified before any is dialled: one blocked address
// in either family refuses the name, and nothing is dialled.
func TestHappyEyeballsPolicyFirst(t *testing.T) {
	for _, answers := range [][]string{{"2001:db8::1", "10.0.0.1"}, {"::1", "192.0.2.10"}, {"fd00::1", "192.0.2.10"}} {
		res := newStubResolver(t)
		res.set("dual.example.com", answers...)
		var dialled []string
		g := New(AllowCIDR(netip.MustParsePrefix("2001:db8::1/128"), netip.MustParsePrefix("192.0.2.10/32")),
			WithResolver(res), WithLimits(testLimits),
			WithDialContext(func(_ context.Context, _, addr string) (net.Conn, error) {
				dialled = append(dialled, addr)
				return nil, errors.New("no dial expected")
			}))
		_, err := g.Fetch(context.Background(), Request{URL: "http://dual.example.com/"})
		if !errors.Is(err, ErrBlockedAddress) || len(dialled) > 0 {
			t.Errorf("%v: Fetch error %v, dialled %v; want a refusal and no dial", answers, err, dialled)
		}
	}
}

// A host with only AAAA records is reached over IPv6 where the machine
// has IPv6 (here its loopback, through the real dialer and its
// connect-time check).
func TestIPv6Only(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	port := int(netip.MustParseAddrPort(ln.Addr().String()).Port())
	res := newStubResolver(t)
	res.set("v6only.example.com", "::1")
	g := New(AllowCIDR(netip.MustParsePrefix("::1/128")), AllowPorts(port), WithResolver(res), WithLimits(testLimits))
	resp, err := g.Fetch(context.Background(), Request{URL: "http://v6only.example.com:" + strconv.Itoa(port) + "/"})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("Fetch = %v, %v", resp, err)
	}
}
