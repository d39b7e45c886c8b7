package ladder

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"sync"

	"github.com/citegate/citegate/netguard"
)

// addrGate is the second politeness layer: at most limit requests in flight
// to one server address, whatever host names lead there. The per-host gate
// cannot see that 197 cited sites are one small shared server; this gate
// can (the realpages-dev harness, one Python server with a listen backlog of
// 5, lost pages to connect timeouts at 192 in flight without it). A host's
// address is resolved once per run through the guard (no connection; the
// dial checks afresh, and the run's guard shares the answer with it); a
// host that does not resolve is not limited here, and its request fails as
// it would have. A lookup that got no answer at all (netguard.ErrDNSNoAnswer,
// after the guard's own retries) fails the request at once instead of
// resolving again in the dial, and is not remembered, so the rung's next
// attempt asks again.
type addrGate struct {
	limit   int // ≤ 0: no limit
	resolve func(ctx context.Context, host string, port int) (netip.Addr, error)

	mu     sync.Mutex
	byHost map[string]hostAddr
	slots  map[netip.Addr]chan struct{}
}

type hostAddr struct {
	addr netip.Addr
	ok   bool
}

func newAddrGate(limit int, resolve func(context.Context, string, int) (netip.Addr, error)) *addrGate {
	return &addrGate{limit: limit, resolve: resolve, byHost: map[string]hostAddr{}, slots: map[netip.Addr]chan struct{}{}}
}

// addressOf returns host's address, resolving it on first use; ok is false
// for a host that does not resolve (or when there is no limit). err is the
// lookup's when it got no answer.
func (a *addrGate) addressOf(ctx context.Context, host, rawURL string) (netip.Addr, bool, error) {
	if a == nil || a.limit <= 0 || a.resolve == nil {
		return netip.Addr{}, false, nil
	}
	a.mu.Lock()
	ha, seen := a.byHost[host]
	a.mu.Unlock()
	if seen {
		return ha.addr, ha.ok, nil
	}
	name, port := splitHostPort(host, rawURL)
	addr, err := a.resolve(ctx, name, port)
	ha = hostAddr{addr, err == nil}
	switch {
	case err != nil && ctx.Err() != nil:
		return netip.Addr{}, false, nil // cancelled: do not remember a non-answer
	case errors.Is(err, netguard.ErrDNSNoAnswer):
		return netip.Addr{}, false, err
	}
	a.mu.Lock()
	a.byHost[host] = ha
	a.mu.Unlock()
	return ha.addr, ha.ok, nil
}

// splitHostPort splits the gate's host key (host or host:port) and fills in
// the scheme's default port from rawURL.
func splitHostPort(host, rawURL string) (string, int) {
	if h, p, err := net.SplitHostPort(host); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			return h, n
		}
	}
	if u, err := url.Parse(rawURL); err == nil && u.Scheme == "https" {
		return host, 443
	}
	return host, 80
}

func (a *addrGate) sem(addr netip.Addr) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.slots[addr]
	if s == nil {
		s = make(chan struct{}, a.limit)
		a.slots[addr] = s
	}
	return s
}

// acquire waits for a slot at host's address; the returned release must be
// called when the request is over. It fails when the context ends or the
// host's lookup got no answer.
func (a *addrGate) acquire(ctx context.Context, host, rawURL string) (func(), error) {
	addr, ok, err := a.addressOf(ctx, host, rawURL)
	if err != nil {
		return nil, err
	}
	if !ok {
		return func() {}, nil
	}
	s := a.sem(addr)
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// busy reports whether host's address, when known, has no free slot: the
// dispatcher then gives the worker another host instead of letting it wait.
func (a *addrGate) busy(host string) bool {
	if a == nil || a.limit <= 0 {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ha, seen := a.byHost[host]
	if !seen || !ha.ok {
		return false
	}
	s := a.slots[ha.addr]
	return s != nil && len(s) >= a.limit
}
