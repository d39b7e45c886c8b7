package ladder

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/citegate/citegate/netguard"
)

// A resolver that answers "no such name" for every name — an offline
// sandbox's, or a corporate one that resolves only internal names and
// leaves the internet to a proxy — would make every citation invalid by
// NXDOMAIN. Before the first NXDOMAIN of a run counts as evidence, the
// ladder asks the same resolver for names that exist on the public
// internet (Config.DNSCanaries). When none of them resolves, the resolver
// cannot tell a missing name from a real one: that NXDOMAIN, and every
// later one, is not evidence — the citation is not checked (the attempt
// reached nothing, so a run where nothing else was reached says "network
// unreachable").

// DefaultDNSCanaries are names reserved by IANA that resolve publicly and
// are not expected to go away.
var DefaultDNSCanaries = []string{"example.com", "iana.org"}

// hostName is a URL's host without port or brackets.
func hostName(rawURL string) string {
	h := hostOf(rawURL)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.Trim(h, "[]")
}

// otherHostsAsked bounds the run's own hosts the check asks for.
const otherHostsAsked = 8

// dnsCanary is the run's one check of its resolver.
type dnsCanary struct {
	once   sync.Once
	denies bool
	detail string
	// hosts are the run's cited host names, sorted.
	hosts []string
}

// newDNSCanary is a run's check, knowing the run's cited host names (IP
// literals left out), sorted so the check asks the same names whatever
// order URLs finish in.
func newDNSCanary(items []Item) *dnsCanary {
	c := &dnsCanary{}
	seen := map[string]bool{}
	for i := range items {
		h := hostName(items[i].Fetch)
		if _, err := netip.ParseAddr(h); err == nil || h == "" || seen[h] {
			continue
		}
		seen[h] = true
		c.hosts = append(c.hosts, h)
	}
	slices.Sort(c.hosts)
	return c
}

// resolverDenies reports whether the resolver failed the canary check: it
// answered NXDOMAIN for a cited host and NXDOMAIN for every canary and
// every other cited host it asked too.
// The check runs once per run, on the first NXDOMAIN, and asks the cited
// host itself again among the run's hosts (so the names asked do not depend
// on which URL came first); with no canaries configured every NXDOMAIN
// counts.
func (l *Ladder) resolverDenies(ctx context.Context) (bool, string) {
	c := l.canary
	if len(l.cfg.DNSCanaries) == 0 || l.cfg.Guard == nil || c == nil {
		return false, ""
	}
	c.once.Do(func() {
		names := append(slices.Clone(l.cfg.DNSCanaries), c.hosts[:min(len(c.hosts), otherHostsAsked)]...)
		var failed []string
		for _, n := range names {
			_, err := l.cfg.Guard.Address(ctx, n, 443)
			if err == nil || ctx.Err() != nil || !noSuchHost(err) {
				// A canary that resolves shows an honest resolver. One
				// that got no answer (a lost packet, a cancelled run)
				// shows nothing: only a resolver that says outright that
				// real names do not exist is caught, and otherwise the
				// NXDOMAIN stands as it would have.
				return
			}
			failed = append(failed, strconv.Quote(n)+" ("+netguard.Reason(err)+")")
		}
		c.denies = true
		c.detail = "DNS: the resolver also denies names that exist — " + strings.Join(failed[:len(l.cfg.DNSCanaries)], ", ") +
			fmt.Sprintf(" and %d other cited host(s)", len(failed)-len(l.cfg.DNSCanaries)) +
			": a filtering or offline resolver, so its NXDOMAIN is not evidence (not checked)"
	})
	return c.denies, c.detail
}
