package netguard

import (
	"net/netip"
	"strings"
)

// DefaultMaxURLLength is the longest URL Preflight accepts unless
// MaxURLLength says otherwise. Real citations are far shorter; a cap keeps
// hostile input from costing parse time and log space.
const DefaultMaxURLLength = 2048

// Guard holds the operator's policy. A Guard is immutable once New returns,
// so one value can be shared by every goroutine of a run (and, later, by the
// connect-time dialer, which will use the same policy through CheckAddr).
type Guard struct {
	allow        []netip.Prefix
	domains      []string
	domainsSet   bool
	maxURLLength int
}

// Option configures a Guard in New.
type Option func(*Guard)

// New returns a Guard with the default policy: http and https only, no
// userinfo, no local or internal names, no special-purpose addresses, URLs of
// at most DefaultMaxURLLength bytes, and any public host.
func New(opts ...Option) *Guard {
	g := &Guard{maxURLLength: DefaultMaxURLLength}
	for _, o := range opts {
		o(g)
	}
	return g
}

// AllowCIDR admits addresses inside the given prefixes even when they fall in
// a blocked range. It exists for tests (httptest listens on 127.0.0.1) and for
// operators who deliberately want to reach an internal mirror. An allow rule
// matches the address itself (an IPv4-mapped address is matched as its IPv4
// form); it does not reach into the IPv4 address embedded in NAT64, 6to4 or
// Teredo addresses, so allowing 127.0.0.1/32 does not admit 64:ff9b::7f00:1.
// Allow rules never relax the name checks: "localhost" stays blocked.
func AllowCIDR(prefixes ...netip.Prefix) Option {
	return func(g *Guard) {
		for _, p := range prefixes {
			if p.IsValid() {
				g.allow = append(g.allow, p.Masked())
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
