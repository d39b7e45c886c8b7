package netguard

import (
	"context"
	"net"
	"net/netip"
	"time"
)

// fallbackDelay is how long a connection attempt has before the next
// address is tried in parallel (RFC 8305 §5 recommends 250 ms): a host
// whose IPv6 path is broken is reached over IPv4 a quarter second later,
// not after a connect timeout.
const fallbackDelay = 250 * time.Millisecond

// interleave orders addresses for Happy Eyeballs (RFC 8305 §4): the
// resolver's order, with the families alternating from the family of the
// first answer, so a broken family never holds up the other for more than
// one attempt.
func interleave(addrs []netip.Addr) []netip.Addr {
	var first, other []netip.Addr
	for _, a := range addrs {
		if a.Is4() == addrs[0].Is4() {
			first = append(first, a)
		} else {
			other = append(other, a)
		}
	}
	out := make([]netip.Addr, 0, len(addrs))
	for i := 0; i < len(first) || i < len(other); i++ {
		if i < len(first) {
			out = append(out, first[i])
		}
		if i < len(other) {
			out = append(out, other[i])
		}
	}
	return out
}

// dialResult is one connection attempt's outcome.
type dialResult struct {
	conn net.Conn
	err  error
	i    int
}

// dialRace connects to one of addrs (all already classified) on port,
// Happy Eyeballs style: the attempts start in interleave's order, each
// when the one before it fails or fallbackDelay after it started, and the
// first connection wins; the others are cancelled and any late connection
// closed. Every attempt goes through the raw dialer, whose ControlContext
// checks the address once more. It returns the error of the first attempt
// that failed when all did.
func (g *Guard) dialRace(ctx context.Context, network string, addrs []netip.Addr, port int) (net.Conn, error) {
	addrs = interleave(addrs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan dialResult, len(addrs))
	start := func(i int) {
		go func() {
			conn, err := g.dial(ctx, network, netip.AddrPortFrom(addrs[i], uint16(port)).String())
			results <- dialResult{conn, err, i}
		}()
	}
	timer := time.NewTimer(fallbackDelay)
	defer timer.Stop()
	next, pending := 1, 1
	start(0)
	errs := make([]error, len(addrs))
	for pending > 0 {
		select {
		case r := <-results:
			pending--
			if r.err == nil {
				go drain(results, pending)
				return r.conn, nil
			}
			errs[r.i] = r.err
			if next < len(addrs) && ctx.Err() == nil {
				start(next)
				next, pending = next+1, pending+1
				timer.Reset(fallbackDelay)
			}
		case <-timer.C:
			if next < len(addrs) && ctx.Err() == nil {
				start(next)
				next, pending = next+1, pending+1
				timer.Reset(fallbackDelay)
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return nil, ctx.Err()
}

// drain closes the connections of the n attempts still running after a
// race was won (their context is cancelled, so they end soon).
func drain(results <-chan dialResult, n int) {
	for range n {
		if r := <-results; r.conn != nil {
			r.conn.Close()
		}
	}
}
