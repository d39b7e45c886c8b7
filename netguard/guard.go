package netguard

import (
	"crypto/x509"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// DefaultMaxURLLength is the longest URL Preflight accepts unless
// MaxURLLength says otherwise. Real citations are far shorter; a cap keeps
// hostile input from costing parse time and log space.
const DefaultMaxURLLength = 2048

// Guard holds the operator's policy and the machinery that enforces it on
// the network. A Guard is immutable once New returns, so one value can be
// shared by every goroutine of a run: Preflight, CheckAddr, DialContext and
// Fetch all read the same policy.
type Guard struct {
	allow        []netip.Prefix
	domains      []string
	domainsSet   bool
	maxURLLength int
	ports        map[int]bool
	pins         map[pinKey]netip.Addr
	resolver     Resolver
	// lookups bounds the resolver queries in flight (MaxLookupsInFlight);
	// shared, when set (ShareLookups), shares answers among dials.
	lookups chan struct{}
	shared  *lookupShare
	// system is the built-in resolver used when resolver is nil
	// (dnssniff.go); tests point one at their own name server.
	system    *net.Resolver
	dial      dialFunc
	limits    Limits
	userAgent string
	// endpoints are the operator's API endpoints (TrustEndpoints).
	endpoints []endpoint

	// rootCAs replaces the system roots (WithRootCAs); nil means
	// the system pool. Tests set it to trust httptest certificates, which
	// is the only way to reach a TLS success path without the internet.
	rootCAs *x509.CertPool

	// aia caches the issuer certificates fetched through AIA (aia.go).
	aia *aiaCache

	// fetch is Fetch's transport: HTTP/2 or HTTP/1.1; kept-alive connections are
	// reused for the same host only, and every new connection is resolved,
	// classified and dialled afresh (see newTransport).
	fetch *http.Transport
	// noReuse turns connection reuse off (NoConnReuse).
	noReuse bool
}

// Option configures a Guard in New.
type Option func(*Guard)

// New returns a Guard with the default policy: http and https only, ports 80
// and 443 only, no userinfo, no local or internal names, no special-purpose
// addresses, URLs of at most DefaultMaxURLLength bytes, any public host, the
// system resolver, and the default Limits.
func New(opts ...Option) *Guard {
	g := &Guard{
		maxURLLength: DefaultMaxURLLength,
		ports:        map[int]bool{80: true, 443: true},
		pins:         map[pinKey]netip.Addr{},
		userAgent:    DefaultUserAgent,
		lookups:      make(chan struct{}, MaxLookupsInFlight),
		system:       systemResolver,
	}
	for _, o := range opts {
		o(g)
	}
	g.limits = g.limits.withDefaults()
	if g.dial == nil {
		d := &net.Dialer{Timeout: g.limits.HopTimeout, ControlContext: g.control}
		g.dial = d.DialContext
	}
	g.aia = newAIACache()
	g.fetch = g.newTransport(false)
	return g
}

// AllowCIDR admits addresses inside the given prefixes even when they fall in
// a blocked range. It exists for tests (httptest listens on 127.0.0.1) and for
// operators who deliberately want to reach an internal mirror. An allow rule
// matches the address itself (an IPv4-mapped address is matched as its IPv4
// form); it does not reach into the IPv4 address embedded in NAT64, 6to4 or
// Teredo addresses, so allowing 127.0.0.1/32 does not admit 64:ff9b::7f00:1.
// Allow rules never relax the name checks ("localhost" stays blocked) nor the
// port policy: reaching a listener on 127.0.0.1:8080 takes AllowPorts(8080)
// as well, so allowing an address never opens every service on it.
func AllowCIDR(prefixes ...netip.Prefix) Option {
	return func(g *Guard) {
		for _, p := range prefixes {
			if p.IsValid() {
				g.allow = append(g.allow, p.Masked())
			}
		}
	}
}

// AllowPorts adds ports to the port policy, which admits only 80 and 443 by
// default (ssrf.md §2 #91): citations live on web ports, and a free choice
// of port would turn the fetcher into a port scanner of whatever the
// attacker can name (:22, :6379, :2375). Ports outside 1-65535 are ignored.
// The policy applies to every host and every hop, in Preflight and again at
// dial time; it is independent of AllowCIDR.
func AllowPorts(ports ...int) Option {
	return func(g *Guard) {
		for _, p := range ports {
			if p >= 1 && p <= 65535 {
				g.ports[p] = true
			}
		}
	}
}

// DomainAllowlist restricts Preflight to hosts equal to or under one of the
// given suffixes: "example.com" admits example.com and a.example.com but not
// badexample.com. Suffixes are compared after the same IDNA mapping and
// lower-casing as hosts, with leading and trailing dots ignored. The list only
// narrows the policy; an allowlisted host is still subject to every other
// check. Once the option is given the list is in force even if every entry is
// unusable, so a typo fails closed instead of admitting everything.
//
// The list is a URL policy: Preflight and every hop of Fetch apply it.
// DialContext, which also serves Transport for third-party APIs, does not.
func DomainAllowlist(suffixes ...string) Option {
	return func(g *Guard) {
		g.domainsSet = true
		for _, s := range suffixes {
			s = strings.Trim(strings.TrimSpace(s), ".")
			if s == "" {
				continue
			}
			mapped, err := hostProfile.ToASCII(s)
			if err != nil {
				continue
			}
			g.domains = append(g.domains, strings.Trim(mapped, "."))
		}
	}
}

// MaxURLLength sets the longest URL, in bytes, that Preflight accepts.
// A value below 1 keeps DefaultMaxURLLength.
func MaxURLLength(n int) Option {
	return func(g *Guard) {
		if n > 0 {
			g.maxURLLength = n
		}
	}
}

// allowed reports whether an operator allow rule admits a.
func (g *Guard) allowed(a netip.Addr) bool {
	for _, p := range g.allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// inDomainAllowlist reports whether host (mapped, lower-case, no trailing
// dot) passes the DomainAllowlist, which trivially holds when none was set.
func (g *Guard) inDomainAllowlist(host string) bool {
	if !g.domainsSet {
		return true
	}
	for _, d := range g.domains {
		if host == d || (len(host) > len(d) && strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.') {
			return true
		}
	}
	return false
}

// WithRootCAs replaces the system root certificates used for https — for an
// operator whose cited intranet uses a private CA, and for tests that serve
// https from loopback.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(g *Guard) { g.rootCAs = pool }
}
