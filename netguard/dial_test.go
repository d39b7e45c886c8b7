package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dialRow is one ssrf.md §2 row decided at connect time (or by the port
// policy), with what the stubs must have seen.
type dialRow struct {
	id      string
	url     string
	answers map[string][]string // resolver table; nil for rows refused before DNS
	want    error
	lookups int // resolver calls expected
}

// TestDialCatalogue covers ssrf.md §2 #71, #74-#79, #82 and #91. No row may
// reach the raw dialer: every one is refused on the name, the port, or the
// resolver's answers. #80 and #81 (rebinding) need a live listener and are
// TestRebinding and TestRebindingAcrossRedirects.
func TestDialCatalogue(t *testing.T) {
	rows := []dialRow{
		{"71", "http://ip6-localhost/", nil, ErrBlockedHost, 0},
		{"71", "http://ip6-loopback/", nil, ErrBlockedHost, 0},
		{"74", "http://127.0.0.1.nip.io/", map[string][]string{"127.0.0.1.nip.io": {"127.0.0.1"}}, ErrBlockedAddress, 1},
		{"74", "http://169.254.169.254.nip.io/", map[string][]string{"169.254.169.254.nip.io": {"169.254.169.254"}}, ErrBlockedAddress, 1},
		{"74", "http://localtest.me/", map[string][]string{"localtest.me": {"127.0.0.1"}}, ErrBlockedAddress, 1},
		{"74", "http://localh.st/", map[string][]string{"localh.st": {"::1"}}, ErrBlockedAddress, 1},
		{"75", "http://news.example.com/", map[string][]string{"news.example.com": {"10.0.0.5"}}, ErrBlockedAddress, 1},
		{"76", "http://evil.test./", map[string][]string{"evil.test": {"10.0.0.5"}}, ErrBlockedAddress, 1},
		{"77", "https://docs.example.org/", map[string][]string{"docs.example.org": {"203.0.113.50", "198.51.100.20"}}, ErrBlockedAddress, 1},
		// Mixed answers poison the name: the public one is not dialled either.
		{"78", "http://mixed.example.com/", map[string][]string{"mixed.example.com": {"93.184.216.34", "127.0.0.1"}}, ErrBlockedAddress, 1},
		{"78", "http://mixed6.example.com/", map[string][]string{"mixed6.example.com": {"2606:4700::1111", "fd00::1"}}, ErrBlockedAddress, 1},
		{"79", "http://v6.example.com/", map[string][]string{"v6.example.com": {"fd00::1"}}, ErrBlockedAddress, 1},
		{"79", "http://v6.example.com/", map[string][]string{"v6.example.com": {"::1"}}, ErrBlockedAddress, 1},
		{"79", "http://v6.example.com/", map[string][]string{"v6.example.com": {"::ffff:10.0.0.1"}}, ErrBlockedAddress, 1},
		{"79", "http://v6.example.com/", map[string][]string{"v6.example.com": {"::ffff:127.0.0.1"}}, ErrBlockedAddress, 1},
		{"79", "http://v6.example.com/", map[string][]string{"v6.example.com": {"64:ff9b::a9fe:a9fe"}}, ErrBlockedAddress, 1},
		{"82", "http://gone.example.com/", map[string][]string{"gone.example.com": {}}, ErrNoSuchHost, 1},
		{"91", "http://example.com:22/", nil, ErrBlockedPort, 0},
		{"91", "http://example.com:25/", nil, ErrBlockedPort, 0},
		{"91", "http://example.com:6379/", nil, ErrBlockedPort, 0},
		{"91", "http://example.com:11211/", nil, ErrBlockedPort, 0},
		{"91", "http://example.com:2375/", nil, ErrBlockedPort, 0},
	}
	for _, row := range rows {
		t.Run("#"+row.id+" "+row.url, func(t *testing.T) {
			res := newStubResolver(t)
			for name, addrs := range row.answers {
				res.set(name, addrs...)
			}
			rec := &dialRecorder{t: t}
			g := New(WithResolver(res), WithDialContext(rec.dial), WithLimits(testLimits))
			resp, err := g.Fetch(context.Background(), Request{URL: row.url})
			if !errors.Is(err, row.want) || resp != nil {
				t.Fatalf("Fetch = %v, %v; want nil, %v", resp, err, row.want)
			}
			if got := res.total(); got != row.lookups {
				t.Errorf("%d DNS lookups, want %d", got, row.lookups)
			}
			if d := rec.dials(); len(d) != 0 {
				t.Errorf("dialled %v; a refused target must never be connected to", d)
			}
		})
	}
}

// The resolver's failures map to their own sentinels, inside the hop
// deadline, without a dial (ssrf.md §2 #82, §3 S9).
func TestResolverFailures(t *testing.T) {
	rows := []struct {
		name    string
		resolve func(ctx context.Context) ([]netip.Addr, error)
		want    error
	}{
		{"NXDOMAIN", func(context.Context) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}
		}, ErrNoSuchHost},
		{"SERVFAIL", func(context.Context) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}
		}, ErrResolve},
		{"resolver reports timeout", func(context.Context) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}
		}, ErrTimeout},
		{"resolver never answers", func(ctx context.Context) ([]netip.Addr, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, ErrTimeout},
		{"other error", func(context.Context) ([]netip.Addr, error) {
			return nil, errors.New("resolver exploded")
		}, ErrResolve},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res := &funcResolver{f: row.resolve, done: make(chan struct{}, 1)}
			rec := &dialRecorder{t: t}
			g := New(WithResolver(res), WithDialContext(rec.dial), WithLimits(testLimits))
			start := time.Now()
			_, err := g.Fetch(context.Background(), Request{URL: "https://slow-dns.example.com/?token=SECRET"})
			within(t, start, testLimits.HopTimeout+2*time.Second)
			if !errors.Is(err, row.want) {
				t.Fatalf("Fetch = %v, want %v", err, row.want)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error leaks the token: %v", err)
			}
			if d := rec.dials(); len(d) != 0 {
				t.Errorf("dialled %v after a failed lookup", d)
			}
			// http.Transport detaches dials from the request; the lookup
			// must still end with the hop, not linger in the background.
			select {
			case <-res.done:
			case <-time.After(time.Second):
				t.Error("the lookup outlived its hop")
			}
		})
	}
}

type funcResolver struct {
	f    func(ctx context.Context) ([]netip.Addr, error)
	done chan struct{}
}

func (r *funcResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	defer func() {
		select {
		case r.done <- struct{}{}:
		default: // a retried lookup calls again; one signal is enough
		}
	}()
	return r.f(ctx)
}

func okServer(t *testing.T) (*httptest.Server, int) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/x", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, portOf(t, srv.Listener.Addr().String())
}

// ssrf.md §2 #80: the name is resolved once per connection and the raw
// dialer only ever sees the checked literal, so nothing can rebind between
// check and connect. A kept-alive connection is reused for the same host
// (issue 13): it still leads to the address checked when it was dialled,
// and the rebound answer is never dialled. The next connection's lookup is
// checked afresh. 127.0.0.1, admitted by the test's allow rule, plays the
// public address.
func TestRebinding(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port)
	r.res.script("rebind.example.com", func(_ context.Context, call int) ([]netip.Addr, error) {
		if call == 0 {
			return []netip.Addr{loopback}, nil
		}
		return parseAddrs("169.254.169.254"), nil
	})
	u := "http://rebind.example.com:" + strconv.Itoa(port) + "/x"
	resp, err := r.g.Fetch(context.Background(), Request{URL: u})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("first fetch = %v, %v", resp, err)
	}
	want := []string{"127.0.0.1:" + strconv.Itoa(port)}
	if got := r.dial.dials(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dials = %v, want exactly the checked literal %v", got, want)
	}
	if n := r.res.count("rebind.example.com"); n != 1 {
		t.Errorf("%d lookups for one hop, want 1", n)
	}
	// The second request rides the checked connection: no lookup, no dial.
	resp, err = r.g.Fetch(context.Background(), Request{URL: u})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("second fetch on the kept-alive connection = %v, %v", resp, err)
	}
	if n := r.res.count("rebind.example.com"); n != 1 {
		t.Errorf("%d lookups after a reused connection, want still 1", n)
	}
	// A new connection resolves again and sees the rebound answer.
	r.g.CloseIdleConnections()
	_, err = r.g.Fetch(context.Background(), Request{URL: u})
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("after rebinding: %v, want ErrBlockedAddress", err)
	}
	if got := r.dial.dials(); len(got) != 1 {
		t.Errorf("dials = %v; the rebound address must not be dialled", got)
	}
}

// With NoConnReuse every request resolves and dials afresh (the behaviour
// before issue 13, kept for benchmarks).
func TestNoConnReuseDialsEveryRequest(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port, NoConnReuse())
	r.res.set("fresh.example.com", "127.0.0.1")
	u := "http://fresh.example.com:" + strconv.Itoa(port) + "/x"
	for range 3 {
		if resp, err := r.g.Fetch(context.Background(), Request{URL: u}); err != nil || string(resp.Body) != "ok" {
			t.Fatalf("Fetch = %v, %v", resp, err)
		}
	}
	if got := r.dial.dials(); len(got) != 3 {
		t.Errorf("dials = %v, want one per request", got)
	}
	if n := r.res.count("fresh.example.com"); n != 3 {
		t.Errorf("%d lookups, want one per request", n)
	}
}

// ssrf.md §2 #81: every hop resolves and checks again, even on the same
// host, because Fetch never reuses a connection.
func TestRebindingAcrossRedirects(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port)
	r.res.script("a.example.com", func(_ context.Context, call int) ([]netip.Addr, error) {
		if call == 0 {
			return []netip.Addr{loopback}, nil
		}
		return parseAddrs("169.254.169.254"), nil
	})
	resp, err := r.g.Fetch(context.Background(), Request{URL: "http://a.example.com:" + strconv.Itoa(port) + "/"})
	if !errors.Is(err, ErrRedirectBlocked) || !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("Fetch = %v, want ErrRedirectBlocked wrapping ErrBlockedAddress", err)
	}
	if resp == nil || len(resp.Hops) != 2 || resp.Hops[0].Status != http.StatusFound || resp.Hops[1].Status != 0 {
		t.Errorf("hops = %+v", resp)
	}
	if n := r.res.count("a.example.com"); n != 2 {
		t.Errorf("%d lookups, want one per hop", n)
	}
	if got := r.dial.dials(); len(got) != 1 {
		t.Errorf("dials = %v, want only the first hop's", got)
	}
	if got := Reason(err); got != "redirect blocked: private/local target blocked by SSRF policy" {
		t.Errorf("Reason = %q", got)
	}
}

// With every answer allowed, DialContext tries them in order, skipping
// duplicates (a mapped address is its IPv4 form) and falling through a
// refused connection to the next address.
func TestDialContextFallsThrough(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port, AllowCIDR(netip.MustParsePrefix("127.0.0.0/8")))
	r.res.set("multi.example.com", "127.0.0.2", "::ffff:127.0.0.2", "127.0.0.1")
	resp, err := r.g.Fetch(context.Background(), Request{URL: "http://multi.example.com:" + strconv.Itoa(port) + "/x"})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("Fetch = %v, %v", resp, err)
	}
	p := strconv.Itoa(port)
	if got, want := fmt.Sprint(r.dial.dials()), fmt.Sprint([]string{"127.0.0.2:" + p, "127.0.0.1:" + p}); got != want {
		t.Errorf("dials = %s, want %s", got, want)
	}
}

// An allowed answer does not excuse a blocked one in the same set.
func TestDialContextMixedWithAllowed(t *testing.T) {
	r := newRig(t, 8080)
	r.res.set("mixed.example.com", "127.0.0.1", "10.0.0.5")
	_, err := r.g.DialContext(context.Background(), "tcp", "mixed.example.com:8080")
	if !errors.Is(err, ErrBlockedAddress) || !strings.Contains(err.Error(), "mixed.example.com resolves to 10.0.0.5") {
		t.Fatalf("DialContext = %v", err)
	}
	if d := r.dial.dials(); len(d) != 0 {
		t.Errorf("dialled %v", d)
	}
}

func TestDialContextDirect(t *testing.T) {
	r := newRig(t, 8080)
	r.res.set("v4only.example.com", "127.0.0.1")
	rows := []struct {
		network, addr string
		want          error
	}{
		{"udp", "news.example.com:8080", ErrScheme},
		{"unix", "/tmp/sock", ErrScheme},
		{"tcp", "news.example.com", ErrMalformed},
		{"tcp", "news.example.com:080", ErrMalformed},
		{"tcp", "news.example.com:22", ErrBlockedPort},
		{"tcp", "localhost:8080", ErrBlockedHost},
		{"tcp", "metadata:8080", ErrBlockedHost},
		{"tcp", "x.internal:8080", ErrBlockedHost},
		{"tcp", "2130706433:8080", ErrNonCanonicalIP},
		{"tcp", "127.1:8080", ErrNonCanonicalIP},
		{"tcp", "10.0.0.1:8080", ErrBlockedAddress},
		{"tcp", "[::1]:8080", ErrBlockedAddress},
		{"tcp", "[fe80::1%lo]:8080", ErrBlockedAddress},
		{"tcp6", "v4only.example.com:8080", ErrNoSuchHost},
		{"tcp6", "127.0.0.1:8080", ErrNoSuchHost},
	}
	for _, row := range rows {
		if _, err := r.g.DialContext(context.Background(), row.network, row.addr); !errors.Is(err, row.want) {
			t.Errorf("DialContext(%s, %s) = %v, want %v", row.network, row.addr, err, row.want)
		}
	}
	if d := r.dial.dials(); len(d) != 0 {
		t.Errorf("dialled %v", d)
	}
}

// The default raw dialer checks the socket's address in ControlContext,
// independently of everything before it.
func TestControl(t *testing.T) {
	g := New(AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), AllowPorts(8080), WithLimits(testLimits))
	rows := []struct {
		addr string
		want error
	}{
		{"127.0.0.1:8080", nil},
		{"127.0.0.1:80", nil},
		{"127.0.0.1:22", ErrBlockedPort},
		{"127.0.0.2:8080", ErrBlockedAddress},
		{"10.0.0.1:80", ErrBlockedAddress},
		{"[::ffff:10.0.0.1]:80", ErrBlockedAddress},
		{"[fe80::1%eth0]:80", ErrBlockedAddress},
		{"[2606:4700::1111]:443", nil},
		{"garbage", ErrMalformed},
	}
	for _, row := range rows {
		err := g.control(context.Background(), "tcp4", row.addr, nil)
		if row.want == nil && err != nil || row.want != nil && !errors.Is(err, row.want) {
			t.Errorf("control(%s) = %v, want %v", row.addr, err, row.want)
		}
	}
	// And it is wired in: the default dialer refuses 127.0.0.2 (loopback,
	// so nothing leaves the machine even if it did not).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(portOf(t, ln.Addr().String()))
	if _, err := g.dial(context.Background(), "tcp", "127.0.0.2:"+port); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("default dialer to 127.0.0.2 = %v, want ErrBlockedAddress from ControlContext", err)
	}
}

// The default dialer (no WithDialContext) connects to an admitted listener.
func TestDefaultDialer(t *testing.T) {
	_, port := okServer(t)
	res := newStubResolver(t)
	g := New(AllowCIDR(netip.PrefixFrom(loopback, 32)), AllowPorts(port), Pin("news.example.com", port, loopback),
		WithResolver(res), WithLimits(testLimits))
	resp, err := g.Fetch(context.Background(), Request{URL: "http://news.example.com:" + strconv.Itoa(port) + "/"})
	if err != nil || string(resp.Body) != "ok" || len(resp.Hops) != 2 {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
	if res.total() != 0 {
		t.Error("a pinned name was looked up")
	}
}

func TestPin(t *testing.T) {
	r := newRig(t, 8080, Pin("News.Example.COM.", 443, netip.MustParseAddr("10.0.0.1")),
		Pin("bad.example.com", 443, netip.Addr{}))
	r.res.set("news.example.com", "127.0.0.2")
	rows := []struct {
		addr    string
		want    error
		lookups int
	}{
		// A pin replaces DNS, not the classifier.
		{"news.example.com:443", ErrBlockedAddress, 0},
		{"NEWS.example.com.:443", ErrBlockedAddress, 0},
		{"bad.example.com:443", ErrMalformed, 0},
		// Pins are per port: :80 of the same name goes to the resolver.
		{"news.example.com:80", ErrBlockedAddress, 1},
	}
	for _, row := range rows {
		before := r.res.total()
		_, err := r.g.DialContext(context.Background(), "tcp", row.addr)
		if !errors.Is(err, row.want) {
			t.Errorf("DialContext(%s) = %v, want %v", row.addr, err, row.want)
		}
		if got := r.res.total() - before; got != row.lookups {
			t.Errorf("DialContext(%s): %d lookups, want %d", row.addr, got, row.lookups)
		}
	}
	// A pinned name still passes the name checks.
	g := New(Pin("localhost", 80, loopback), AllowCIDR(netip.PrefixFrom(loopback, 32)))
	if _, err := g.Preflight("http://localhost/"); !errors.Is(err, ErrBlockedHost) {
		t.Errorf("pinned localhost: %v, want ErrBlockedHost", err)
	}
}

func TestParseResolve(t *testing.T) {
	ok := []struct {
		spec, host string
		port       int
		addr       string
	}{
		{"news.example.com:443:93.184.216.34", "news.example.com", 443, "93.184.216.34"},
		{"News.Example.com.:80:127.0.0.1", "news.example.com", 80, "127.0.0.1"},
		{"example.com:443:[2606:4700::1111]", "example.com", 443, "2606:4700::1111"},
		{"example.com:443:2606:4700::1111", "example.com", 443, "2606:4700::1111"},
		{" ⓔⓧⓐⓜⓟⓛⓔ.com:8443:::1 ", "example.com", 8443, "::1"},
	}
	for _, c := range ok {
		host, port, addr, err := ParseResolve(c.spec)
		if err != nil || host != c.host || port != c.port || addr != netip.MustParseAddr(c.addr) {
			t.Errorf("ParseResolve(%q) = %q, %d, %v, %v", c.spec, host, port, addr, err)
		}
	}
	bad := map[string]string{
		"":                                "missing port",
		"example.com":                     "missing port",
		"example.com:443":                 "missing address",
		":443:127.0.0.1":                  "empty host",
		"*:443:127.0.0.1":                 "wildcard",
		"+example.com:443:127.0.0.1":      "prefixes",
		"-example.com:443":                "prefixes",
		"[::1]:443:127.0.0.1":             "IP literal",
		"1.2.3.4:443:127.0.0.1":           "IP literal",
		"exa mple.com:443:127.0.0.1":      "invalid host",
		"example.com:0:127.0.0.1":         "port",
		"example.com:65536:127.0.0.1":     "port",
		"example.com:http:127.0.0.1":      "port",
		"example.com:443:":                "invalid IP",
		"example.com:443:127.1":           "invalid IP",
		"example.com:443:host.example":    "invalid IP",
		"example.com:443:1.2.3.4,5.6.7.8": "one address",
		"example.com:443:[::1":            "brackets",
		"example.com:443:::1]":            "brackets",
		"example.com:443:[fe80::1%eth0]":  "zoned",
	}
	for spec, why := range bad {
		_, _, _, err := ParseResolve(spec)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseResolve(%q) = %v, want ErrMalformed mentioning %q", spec, err, why)
		}
	}
}

// ssrf.md §2 #91 at dial time, and the port policy's independence from
// address allow rules.
func TestPortPolicy(t *testing.T) {
	g := New(AllowPorts(8080, 0, -1, 70000), WithLimits(testLimits))
	if _, err := g.Preflight("http://example.com:8080/"); err != nil {
		t.Errorf("AllowPorts(8080): %v", err)
	}
	for _, p := range []int{22, 6379, 70000 % 65536} {
		if _, err := g.Preflight("http://example.com:" + strconv.Itoa(p) + "/"); !errors.Is(err, ErrBlockedPort) {
			t.Errorf("port %d: %v, want ErrBlockedPort", p, err)
		}
	}
	res := newStubResolver(t)
	g = New(AllowCIDR(netip.MustParsePrefix("0.0.0.0/0")), WithResolver(res))
	if _, err := g.DialContext(context.Background(), "tcp", "example.com:6379"); !errors.Is(err, ErrBlockedPort) {
		t.Errorf("DialContext to :6379 = %v, want ErrBlockedPort", err)
	}
	if res.total() != 0 {
		t.Error("a refused port cost a DNS lookup")
	}
}
