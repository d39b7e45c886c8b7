package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Resolver looks up the addresses of a host name. *net.Resolver satisfies
// it; tests pass a stub so that no test depends on real DNS. An
// implementation must return when ctx is done: the hop deadline, and the
// guard's own timeout for one try (resolve.go), reach the resolver only
// through ctx. A *net.DNSError with IsNotFound is read as NXDOMAIN, an
// empty answer without error as NODATA (the name exists, with no address),
// any other error as a failed try, which is retried. Without WithResolver
// the guard uses Go's resolver, strict, asking A and AAAA separately and
// reading the response codes Go does not report (dnssniff.go).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dialFunc is the raw dialer under the guard: it is only ever handed an IP
// literal that has already been classified.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// WithResolver replaces net.DefaultResolver. A nil r keeps the default.
func WithResolver(r Resolver) Option {
	return func(g *Guard) {
		if r != nil {
			g.resolver = r
		}
	}
}

// WithDialContext replaces the raw dialer under the guard, the one that
// opens a socket to an address DialContext has already resolved and
// classified. Tests use it to record every connection attempt and prove
// that a refused address is never dialled. The default is a net.Dialer
// whose ControlContext checks the address once more on the socket itself;
// a replacement takes over that last step, so it should only ever connect
// to the address it is given. A nil d keeps the default.
func WithDialContext(d func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(g *Guard) {
		if d != nil {
			g.dial = d
		}
	}
}

// hopKey carries the Fetch hop's context to DialContext. http.Transport
// detaches dials from the request's cancellation (so a late connection can
// still be pooled), which would let a resolver that never answers outlive
// the hop; DialContext re-attaches it.
type hopKey struct{}

// DialContext is the guarded dialer, for http.Transport.DialContext and for
// anyone else who must connect on behalf of untrusted input. addr is
// "host:port" as http.Transport passes it. DialContext
//
//   - refuses networks other than tcp, tcp4 and tcp6, ports outside the port
//     policy, and the host names Preflight refuses (localhost, single-label
//     and internal names, non-canonical numbers);
//   - takes the address from a Pin, or resolves the name through the
//     Resolver, as a rooted name so that no search domain is appended,
//     retrying until it earns an answer (resolve.go), or takes the shared
//     answer (ShareLookups);
//   - classifies every answer with CheckAddr and refuses the whole name if
//     any answer is blocked: a name that mixes public and private answers
//     is a rebinding setup or a misconfiguration, and in neither case
//     should the outcome depend on which answer happens to connect first;
//   - dials the checked IP literals only, so no second lookup can rebind
//     the name between the check and the connection, racing them Happy
//     Eyeballs style (eyeballs.go: the families alternate, and the next
//     address starts when one fails or has had 250 ms), so a broken IPv6
//     path costs a quarter second, not a connect timeout;
//   - through the default dialer's ControlContext, checks the address of
//     the socket once more just before connect, as a last line that does
//     not rely on any of the above being right.
//
// The DomainAllowlist is not applied here; it is a URL policy (Preflight,
// Fetch). Every error wraps a sentinel: a refusal, ErrNoSuchHost (with
// ErrNoAddress for a name that exists but has no address), ErrDNSNoAnswer
// (with ErrResolve or ErrTimeout), ErrTimeout, ErrCanceled, ErrConnRefused, ErrConnReset or
// ErrNetwork.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if hop, ok := ctx.Value(hopKey{}).(context.Context); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(hop, cancel)()
	}
	ctx, cancel := context.WithTimeout(ctx, g.limits.HopTimeout)
	defer cancel()

	family, ok := ipFamily[network]
	if !ok {
		return nil, fmt.Errorf("netguard: dial: network %q: %w", clip(network), ErrScheme)
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil || !validPort(portText) {
		return nil, fmt.Errorf("netguard: dial %q: want host:port: %w", clip(addr), ErrMalformed)
	}
	if g.trusted("", host, portText) {
		return g.dialTrusted(ctx, network, host, portText)
	}
	if err := g.checkPort(portText); err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(portText)
	addrs, err := g.addrs(ctx, family, host, port)
	if err != nil {
		return nil, err
	}
	conn, first := g.dialRace(ctx, network, addrs, port)
	if first == nil {
		return conn, nil
	}
	if IsRefusal(first) {
		return nil, first
	}
	return nil, fmt.Errorf("netguard: connect %s: %w: %s", clip(host), failure(ctx, first), RedactText(first.Error()))
}

// ipFamily maps a dial network to the resolver network for it.
var ipFamily = map[string]string{"tcp": "ip", "tcp4": "ip4", "tcp6": "ip6"}

// addrs returns the classified addresses to dial for host, unmapped and
// limited to family.
func (g *Guard) addrs(ctx context.Context, family, host string, port int) ([]netip.Addr, error) {
	var answers []netip.Addr
	name := "" // empty for an IP literal, which needs no "resolves to"
	if a, err := netip.ParseAddr(host); err == nil {
		answers = []netip.Addr{a}
	} else {
		mapped, _, err := g.checkName(host)
		if err != nil {
			return nil, err
		}
		name = strings.TrimSuffix(mapped, ".")
		if a, ok := g.pins[pinKey{name, port}]; ok {
			answers = []netip.Addr{a}
		} else if answers, err = g.lookup(ctx, family, name); err != nil {
			return nil, err
		}
	}
	var out []netip.Addr
	for _, a := range answers {
		if detail, err := g.addrVerdict(a); err != nil {
			if name == "" {
				return nil, fmt.Errorf("netguard: %s: %w", detail, err)
			}
			return nil, fmt.Errorf("netguard: %s resolves to %s: %w", name, detail, err)
		}
		a = a.Unmap()
		if (family == "ip4" && !a.Is4()) || (family == "ip6" && !a.Is6()) || containsAddr(out, a) {
			continue
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, &dnsError{fmt.Sprintf("netguard: %s: no %s address", clip(host), family), []error{ErrNoAddress, ErrNoSuchHost}}
	}
	return out, nil
}

func containsAddr(list []netip.Addr, a netip.Addr) bool {
	for _, b := range list {
		if a == b {
			return true
		}
	}
	return false
}

// lookup resolves name (lower-case, no trailing dot) through the Resolver,
// with the retries and classification of resolve.go, shared among dials
// when ShareLookups is set.
func (g *Guard) lookup(ctx context.Context, family, name string) ([]netip.Addr, error) {
	if g.shared == nil {
		addrs, _, err := g.resolveName(ctx, family, name)
		return addrs, err
	}
	addrs, err := g.shared.lookup(ctx, shareKey{family, name}, func(lctx context.Context) ([]netip.Addr, time.Duration, error) {
		return g.resolveName(lctx, family, name)
	})
	if err != nil && Reason(err) == "unclassified error" {
		// The caller gave up waiting; the lookup goes on for the others.
		return nil, fmt.Errorf("netguard: resolve %s: %w", name, failure(ctx, err))
	}
	return addrs, err
}

// control is the default dialer's ControlContext: it sees the socket's real
// destination after every resolution and before connect.
func (g *Guard) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: connect %q: %w", clip(address), ErrMalformed)
	}
	if err := g.CheckAddr(ap.Addr()); err != nil {
		return err
	}
	return g.checkPort(strconv.Itoa(int(ap.Port())))
}

// failure maps a network error to its sentinel. ctx decides first: once it
// is done, whatever error the operation reports is a consequence.
func failure(ctx context.Context, err error) error {
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return ErrCanceled
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return ErrTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return ErrConnRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF):
		// io.EOF: the server closed the connection before answering.
		return ErrConnReset
	}
	return ErrNetwork
}

// Address resolves host (a name or an IP literal, as in a URL) the way a dial
// to host:port would — pins, the resolver, every classification rule — and
// returns the first address such a dial would try. Callers use it to group
// hosts by the server that answers them (the ladder's per-address limit); it
// opens no connection. A dial checks its addresses afresh, and resolves
// afresh unless ShareLookups shares this lookup's answer with it. A lookup
// that got no answer (ErrDNSNoAnswer) is marked as Unreached, as Fetch
// would mark it.
func (g *Guard) Address(ctx context.Context, host string, port int) (netip.Addr, error) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	addrs, err := g.addrs(ctx, "ip", host, port)
	if errors.Is(err, ErrDNSNoAnswer) {
		return netip.Addr{}, markUnreached(err, false)
	}
	if err != nil {
		return netip.Addr{}, err
	}
	return addrs[0], nil
}
