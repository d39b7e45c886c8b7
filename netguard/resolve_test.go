package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/netguard/nettest/dnstest"
	"golang.org/x/net/dns/dnsmessage"
)

// Resolver errors as Go's resolver reports them.
var (
	dnsNotFound  = &net.DNSError{Err: "no such host", Name: "x.", IsNotFound: true}
	dnsServFail  = &net.DNSError{Err: "server misbehaving", Name: "x.", IsTemporary: true}
	dnsRefused   = &net.DNSError{Err: "server misbehaving", Name: "x."} // REFUSED: not even temporary
	dnsTimeout   = &net.DNSError{Err: "i/o timeout", Name: "x.", IsTimeout: true, IsTemporary: true}
	dnsUnreached = &net.DNSError{Err: "dial udp 10.0.0.53:53: connect: network is unreachable", Name: "x.", IsTemporary: true}
)

// answers scripts a name's successive lookups; past the end, the last
// entry repeats. A nil error with no address is NODATA.
type scripted []struct {
	addrs []string
	err   error
}

func (s scripted) answer(_ context.Context, call int) ([]netip.Addr, error) {
	a := s[min(call, len(s)-1)]
	return parseAddrs(a.addrs...), a.err
}

// A lookup earns its answer: a failure is asked again, NXDOMAIN is asked
// twice, and only then is the outcome reported, with a sentinel that says
// which. The first row is issue 22's: Go's lenient resolver read a lost A
// query with an empty AAAA answer as "no such host", and the citation was
// called invalid on that one packet.
func TestLookupOutcomes(t *testing.T) {
	ok := []string{"127.0.0.1"}
	rows := []struct {
		name    string
		script  scripted
		want    error // nil: the address
		notWant error
		lookups int
	}{
		{"one lost query read as no such host", scripted{{nil, dnsNotFound}, {ok, nil}}, nil, nil, 2},
		{"confirmed NXDOMAIN", scripted{{nil, dnsNotFound}}, ErrNoSuchHost, ErrNoAddress, 2},
		{"NXDOMAIN, then a failure, then NXDOMAIN", scripted{{nil, dnsNotFound}, {nil, dnsServFail}, {nil, dnsNotFound}}, ErrNoSuchHost, ErrDNSNoAnswer, 3},
		{"SERVFAIL, then an answer", scripted{{nil, dnsServFail}, {ok, nil}}, nil, nil, 2},
		{"timeouts, then an answer", scripted{{nil, dnsTimeout}, {nil, dnsTimeout}, {ok, nil}}, nil, nil, 3},
		{"SERVFAIL every time", scripted{{nil, dnsServFail}}, ErrDNSNoAnswer, ErrNoSuchHost, dnsTries},
		{"REFUSED every time", scripted{{nil, dnsRefused}}, ErrResolve, ErrNoSuchHost, dnsTries},
		{"timeouts every time", scripted{{nil, dnsTimeout}}, ErrTimeout, ErrNoSuchHost, dnsTries},
		{"no network", scripted{{nil, dnsUnreached}}, ErrDNSNoAnswer, ErrNoSuchHost, dnsTries},
		{"NXDOMAIN once, then failures", scripted{{nil, dnsNotFound}, {nil, dnsServFail}}, ErrDNSNoAnswer, ErrNoSuchHost, dnsTries},
		{"NODATA", scripted{{nil, nil}}, ErrNoAddress, nil, 1},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, 80)
			r.res.script("host.example.com", row.script.answer)
			addr, err := r.g.Address(context.Background(), "host.example.com", 80)
			switch {
			case row.want == nil && (err != nil || addr != loopback):
				t.Errorf("Address = %v, %v; want %v", addr, err, loopback)
			case row.want != nil && !errors.Is(err, row.want):
				t.Errorf("Address = %v, want %v", err, row.want)
			case row.notWant != nil && errors.Is(err, row.notWant):
				t.Errorf("Address = %v, must not be %v", err, row.notWant)
			}
			if n := r.res.count("host.example.com"); n != row.lookups {
				t.Errorf("%d lookups, want %d", n, row.lookups)
			}
			// No answer is the network's failure, not the site's.
			if Unreached(err) != errors.Is(err, ErrDNSNoAnswer) {
				t.Errorf("Unreached(%v) = %v", err, Unreached(err))
			}
		})
	}
}

// A caller's deadline cuts the retries short, early enough that the
// lookup's own outcome, not the hop's timeout, reaches the caller.
func TestLookupRetriesWithinDeadline(t *testing.T) {
	r := newRig(t, 80)
	r.res.script("host.example.com", scripted{{nil, dnsServFail}}.answer)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.g.DialContext(ctx, "tcp", "host.example.com:80")
	within(t, start, 500*time.Millisecond)
	if !errors.Is(err, ErrDNSNoAnswer) || !errors.Is(err, ErrResolve) {
		t.Errorf("DialContext = %v, want no answer (SERVFAIL)", err)
	}
	if n := r.res.count("host.example.com"); n < 2 {
		t.Errorf("%d lookups, want retries", n)
	}
}

// dnsRig is a guard using the built-in resolver (Go's, strict, watching
// rcodes and TTLs) against a dnstest server on loopback.
func dnsRig(t *testing.T, srv *dnstest.Server, opts ...Option) *Guard {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ctx, pc) }()
	t.Cleanup(func() { cancel(); <-done })
	g := New(append([]Option{AllowCIDR(netip.PrefixFrom(loopback, 32)), WithLimits(testLimits)}, opts...)...)
	g.system = newSystemResolver(pc.LocalAddr().String())
	return g
}

// The built-in resolver asks A and AAAA on their own, retries only the one
// that was lost, and tells NXDOMAIN from NODATA by the response code, which
// Go's resolver reports alike.
func TestBuiltinResolver(t *testing.T) {
	srv := &dnstest.Server{TTL: 30, Hosts: map[string]dnstest.Host{
		"a.example.com":      {A: parseAddrs("127.0.0.1")},
		"flaky.example.com":  {A: parseAddrs("127.0.0.1")},
		"flaky5.example.com": {A: parseAddrs("127.0.0.1")},
		"nodata.example.com": {},
		"sick.example.com":   {ServFail: true},
	}, Lose: func(name string, qtype dnsmessage.Type, nth int) bool {
		return strings.HasPrefix(name, "flaky") && qtype == dnsmessage.TypeA && nth == 0
	}}
	g := dnsRig(t, srv)
	rows := []struct {
		host    string
		limit   time.Duration // the caller's deadline, if any
		want    error         // nil: 127.0.0.1
		notWant error
		queries int // at least, for SERVFAIL: Go asks each server resolv.conf's attempts times
	}{
		{"a.example.com", 0, nil, nil, 2},
		// issue 22: the A query lost, the AAAA answer empty, within a
		// hop's 5 s (Go's resolver waits 5 s before it asks again).
		{"flaky5.example.com", 5 * time.Second, nil, nil, 3},
		{"flaky.example.com", 0, nil, nil, 3},
		{"nodata.example.com", 0, ErrNoAddress, nil, 2},
		{"gone.example.com", 0, ErrNoSuchHost, ErrNoAddress, 4},
		{"sick.example.com", 0, ErrDNSNoAnswer, ErrNoSuchHost, 2 * dnsTries},
	}
	var wg sync.WaitGroup
	for _, row := range rows {
		wg.Go(func() {
			ctx := context.Background()
			if row.limit > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, row.limit)
				defer cancel()
			}
			addr, err := g.Address(ctx, row.host, 80)
			switch {
			case row.want == nil && (err != nil || addr != loopback):
				t.Errorf("%s: Address = %v, %v; want %v", row.host, addr, err, loopback)
			case row.want != nil && !errors.Is(err, row.want):
				t.Errorf("%s: Address = %v, want %v", row.host, err, row.want)
			case row.notWant != nil && errors.Is(err, row.notWant):
				t.Errorf("%s: Address = %v, must not be %v", row.host, err, row.notWant)
			}
			if n := srv.Queries(row.host); n != row.queries && (!errors.Is(row.want, ErrDNSNoAnswer) || n < row.queries) {
				t.Errorf("%s: %d queries, want %d", row.host, n, row.queries)
			}
		})
	}
	wg.Wait()
}

// With ShareLookups, the built-in resolver keeps an answer for its TTL.
func TestSharedAnswerHonoursTTL(t *testing.T) {
	srv := &dnstest.Server{TTL: 5, Hosts: map[string]dnstest.Host{"a.example.com": {A: parseAddrs("127.0.0.1")}}}
	g := dnsRig(t, srv, ShareLookups(time.Minute))
	now := time.Now()
	var clock atomic.Int64
	g.shared.now = func() time.Time { return now.Add(time.Duration(clock.Load())) }
	for _, step := range []struct {
		advance time.Duration
		queries int
	}{{0, 2}, {4 * time.Second, 2}, {2 * time.Second, 4}} {
		clock.Add(int64(step.advance))
		if _, err := g.Address(context.Background(), "a.example.com", 80); err != nil {
			t.Fatal(err)
		}
		if n := srv.Queries("a.example.com"); n != step.queries {
			t.Errorf("after %v more: %d queries, want %d", step.advance, n, step.queries)
		}
	}
}

// ShareLookups: one lookup per name, however many dials wait for it; its
// answer (and a confirmed NXDOMAIN) kept, a failure not.
func TestShareLookups(t *testing.T) {
	r := newRig(t, 80, ShareLookups(time.Minute))
	r.res.script("busy.example.com", func(ctx context.Context, _ int) ([]netip.Addr, error) {
		time.Sleep(50 * time.Millisecond)
		return []netip.Addr{loopback}, nil
	})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := r.g.Address(context.Background(), "busy.example.com", 80); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, err := r.g.DialContext(context.Background(), "tcp", "busy.example.com:80"); err == nil || errors.Is(err, ErrNoSuchHost) {
		t.Errorf("DialContext = %v, want a connection failure after the shared answer", err)
	}
	if n := r.res.count("busy.example.com"); n != 1 {
		t.Errorf("%d lookups for 51 callers, want 1", n)
	}

	r.res.script("gone.example.com", scripted{{nil, dnsNotFound}}.answer)
	for range 3 {
		if _, err := r.g.Address(context.Background(), "gone.example.com", 80); !errors.Is(err, ErrNoSuchHost) {
			t.Errorf("Address = %v", err)
		}
	}
	if n := r.res.count("gone.example.com"); n != 2 {
		t.Errorf("%d lookups, want 2 (the confirmation), then the shared NXDOMAIN", n)
	}

	r.res.script("sick.example.com", func(_ context.Context, call int) ([]netip.Addr, error) {
		if call < dnsTries {
			return nil, dnsServFail
		}
		return []netip.Addr{loopback}, nil
	})
	if _, err := r.g.Address(context.Background(), "sick.example.com", 80); !errors.Is(err, ErrDNSNoAnswer) {
		t.Errorf("first Address = %v, want no answer", err)
	}
	if a, err := r.g.Address(context.Background(), "sick.example.com", 80); err != nil || a != loopback {
		t.Errorf("second Address = %v, %v; a failure must not be kept", a, err)
	}
}

// A shared lookup outlives one caller's deadline, but not every caller's.
func TestSharedLookupEndsWithItsCallers(t *testing.T) {
	r := newRig(t, 80, ShareLookups(time.Minute))
	ended := make(chan struct{})
	r.res.script("slow.example.com", func(ctx context.Context, _ int) ([]netip.Addr, error) {
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := r.g.Address(ctx, "slow.example.com", 80); !errors.Is(err, ErrTimeout) {
		t.Errorf("Address = %v, want timed out", err)
	}
	select {
	case <-ended:
	case <-time.After(time.Second):
		t.Error("the lookup went on with nobody waiting")
	}
}

// Sharing answers opens no rebinding hole. The answer a name gave first is
// the only one ever dialled, on every new connection; and a shared answer
// in a blocked range is refused on every dial, as a fresh one would be.
func TestSharedAnswersAreCheckedOnEveryDial(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port, ShareLookups(time.Minute))
	r.res.script("rebind.example.com", func(_ context.Context, call int) ([]netip.Addr, error) {
		if call == 0 {
			return []netip.Addr{loopback}, nil
		}
		return parseAddrs("169.254.169.254"), nil
	})
	u := "http://rebind.example.com:" + strconv.Itoa(port) + "/x"
	for range 3 {
		resp, err := r.g.Fetch(context.Background(), Request{URL: u})
		if err != nil || string(resp.Body) != "ok" {
			t.Fatalf("Fetch = %v, %v", resp, err)
		}
		r.g.CloseIdleConnections()
	}
	for _, d := range r.dial.dials() {
		if d != "127.0.0.1:"+strconv.Itoa(port) {
			t.Errorf("dialled %s; only the checked answer may be", d)
		}
	}
	if n := len(r.dial.dials()); n != 3 {
		t.Errorf("%d dials, want one per connection", n)
	}

	r.res.set("inside.example.com", "127.0.0.1", "169.254.169.254")
	if _, err := r.g.Address(context.Background(), "inside.example.com", port); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("Address = %v", err)
	}
	for range 2 {
		_, err := r.g.Fetch(context.Background(), Request{URL: "http://inside.example.com:" + strconv.Itoa(port) + "/x"})
		if !errors.Is(err, ErrBlockedAddress) || !strings.Contains(err.Error(), "169.254.169.254") {
			t.Errorf("Fetch = %v, want the shared answer refused", err)
		}
	}
	if n := r.res.count("inside.example.com"); n != 1 {
		t.Errorf("%d lookups, want 1 shared", n)
	}
	if n := len(r.dial.dials()); n != 3 {
		t.Errorf("dials %v; a refused answer must never be dialled", r.dial.dials())
	}
}

// At most MaxLookupsInFlight queries are in flight, however many dials
// start at once.
func TestLookupsInFlightBounded(t *testing.T) {
	var now, peak atomic.Int64
	g := New(AllowCIDR(netip.PrefixFrom(loopback, 32)), WithResolver(resolverFunc(func(ctx context.Context, _, _ string) ([]netip.Addr, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		return []netip.Addr{loopback}, nil
	})))
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			if _, err := g.Address(context.Background(), "h"+strconv.Itoa(i)+".example.com", 80); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > MaxLookupsInFlight || p < 2 {
		t.Errorf("peak %d lookups in flight, want 2..%d", p, MaxLookupsInFlight)
	}
}
