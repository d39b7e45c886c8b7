package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test-wide limits: short enough that every hostile server is cut off in
// a second or so, long enough for the race detector on a loaded 2-core CI
// machine (300 ms flaked there).
var testLimits = Limits{
	HopTimeout:     time.Second,
	MaxRedirects:   5,
	MaxBodyBytes:   64 << 10,
	MaxHeaderBytes: 16 << 10,
	MaxRetryAfter:  60 * time.Second,
}

var loopback = netip.MustParseAddr("127.0.0.1")

// stubResolver answers from a table and counts calls; a name it does not
// know fails the test, so no test can fall through to real DNS.
type stubResolver struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string]answerFunc
	calls   map[string]int
}

func newStubResolver(t *testing.T) *stubResolver {
	return &stubResolver{t: t, answers: map[string]answerFunc{}, calls: map[string]int{}}
}

// answerFunc answers the given (0-based) lookup of a name.
type answerFunc func(ctx context.Context, call int) ([]netip.Addr, error)

// set makes name answer addrs on every call.
func (r *stubResolver) set(name string, addrs ...string) {
	r.script(name, func(context.Context, int) ([]netip.Addr, error) { return parseAddrs(addrs...), nil })
}

// script makes name answer whatever f says.
func (r *stubResolver) script(name string, f answerFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[name] = f
}

func (r *stubResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if !strings.HasSuffix(host, ".") {
		r.t.Errorf("resolver asked for %q: names must be rooted so no search domain applies", host)
	}
	name := strings.TrimSuffix(host, ".")
	r.mu.Lock()
	f, ok := r.answers[name]
	call := r.calls[name]
	r.calls[name]++
	r.mu.Unlock()
	if !ok {
		r.t.Errorf("unexpected DNS lookup of %q", host)
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return f(ctx, call)
}

func (r *stubResolver) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[name]
}

func (r *stubResolver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		n += c
	}
	return n
}

func parseAddrs(addrs ...string) []netip.Addr {
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// dialRecorder is the raw dialer under the guard. It records every address
// it is handed and refuses, as a test failure, anything but loopback: even
// a broken guard cannot make a test send a packet off this machine.
type dialRecorder struct {
	t     *testing.T
	mu    sync.Mutex
	addrs []string
}

func (d *dialRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		d.t.Errorf("guard handed the raw dialer %s %q; only classified loopback literals may get here", network, addr)
		return nil, errors.New("test dialer: refusing non-loopback address")
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *dialRecorder) dials() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// rig is a guard admitting exactly one loopback listener, plus the stubs
// that watch it.
type rig struct {
	g    *Guard
	port int
	res  *stubResolver
	dial *dialRecorder
	base string // http://news.example.com:PORT
}

// newRig admits 127.0.0.1 on port only (AllowCIDR 127.0.0.1/32 plus
// AllowPorts(port)) and pins news.example.com:port to it. extra options
// come last, so they can override.
func newRig(t *testing.T, port int, extra ...Option) *rig {
	t.Helper()
	r := &rig{port: port, res: newStubResolver(t), dial: &dialRecorder{t: t}}
	opts := append([]Option{
		AllowCIDR(netip.PrefixFrom(loopback, 32)),
		AllowPorts(port),
		Pin("news.example.com", port, loopback),
		WithResolver(r.res),
		WithDialContext(r.dial.dial),
		WithLimits(testLimits),
	}, extra...)
	r.g = New(opts...)
	r.base = "http://news.example.com:" + strconv.Itoa(port)
	return r
}

// withRootCAs trusts pool instead of the system roots: the only way to
// reach a TLS success path without the internet.
func withRootCAs(pool *x509.CertPool) Option {
	return func(g *Guard) { g.rootCAs = pool }
}

func trust(srv *httptest.Server) Option {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return withRootCAs(pool)
}

func portOf(t *testing.T, addr string) int {
	t.Helper()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return int(ap.Port())
}

// rawServer serves a script on raw TCP connections, for responses no
// well-behaved server would send. Cleanup closes the listener and every
// connection and waits for the scripts to return.
func rawServer(t *testing.T, script func(c net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				script(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return portOf(t, ln.Addr().String())
}

// readRequest consumes a request head so the client sees a response to it.
func readRequest(c net.Conn) {
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 1024)
	for !strings.Contains(string(buf), "\r\n\r\n") {
		n, err := c.Read(tmp)
		if err != nil {
			return
		}
		buf = append(buf, tmp[:n]...)
	}
}

// waitClosed blocks until the peer closes c (or cleanup closes it), so a
// script that "hangs" still ends when the client gives up.
func waitClosed(c net.Conn) {
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// within fails the test if a call took longer than its deadline allows.
func within(t *testing.T, start time.Time, limit time.Duration) {
	t.Helper()
	if d := time.Since(start); d > limit {
		t.Errorf("took %v, want at most %v", d, limit)
	}
}
