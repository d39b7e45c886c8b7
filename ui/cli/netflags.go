package cli

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fleet"

	"github.com/citegate/citegate/netguard"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// NetFlags are the operator's network-safety controls, all off by default.
type NetFlags struct {
	AllowCIDR       multiFlag
	DomainAllowlist multiFlag
	Resolve         multiFlag
	AllowPort       multiFlag
	// Ladder settings for live online validation.
	BrightDataURL string
	ApifyURL      string
	CacheDir      string
	CacheTTL      time.Duration
	Fleet         string
	FleetRequired bool
	Concurrency   int
	PerHost       int
	PerAddress    int
	HostInterval  time.Duration
	// bound is set for the commands that take the guard flags, ladder for
	// those that also take the ladder's.
	bound, ladder bool
}

func bindNet(b *binder, n *NetFlags) {
	bindGuard(b, n)
	n.ladder = true
	b.fs.StringVar(&n.BrightDataURL, "brightdata-api-url", "", "Bright Data API base URL (default https://api.brightdata.com); key and zone from BRIGHTDATA_API_KEY, BRIGHTDATA_UNLOCKER_ZONE")
	b.fs.StringVar(&n.ApifyURL, "apify-api-url", "", "Apify API base URL (default https://api.apify.com); token from APIFY_TOKEN")
	b.fs.StringVar(&n.CacheDir, "cache", "", "keep definitive live results in DIR, or in a Redis shared by many runners (redis://[user:pass@]host:port/db, rediss:// for TLS), and reuse them (valid, paywalled, invalid, mismatch; never blocked or transient failures)")
	b.fs.StringVar(&n.Fleet, "fleet", "", "share the per-host limits, their backoff and single flight of each URL with every runner naming this Redis (redis://… or rediss://…; see citegate help fleet)")
	b.fs.BoolVar(&n.FleetRequired, "fleet-required", false, "fail instead of falling back to local limits and cache when the --fleet or --cache Redis cannot be reached or is lost")
	b.fs.DurationVar(&n.CacheTTL, "cache-ttl", engine.DefaultCacheTTL, "how long a cached result stays fresh")
	b.fs.IntVar(&n.Concurrency, "concurrency", engine.DefaultConcurrency, "URLs checked at once")
	b.fs.IntVar(&n.PerHost, "per-host", engine.DefaultPerHost, "requests in flight to one host")
	b.fs.IntVar(&n.PerAddress, "per-address", engine.DefaultPerAddress, "requests in flight to one server address, whatever host names lead there (0: no limit)")
	b.fs.DurationVar(&n.HostInterval, "host-interval", engine.DefaultHostInterval, "minimum spacing between request starts to one host")
}

// bindGuard registers only the network-safety controls (verify fetches
// sources but runs no ladder).
func bindGuard(b *binder, n *NetFlags) {
	n.bound = true
	b.fs.Var(&n.AllowCIDR, "allow-cidr", "admit addresses in CIDR although the SSRF policy refuses them, e.g. an intranet wiki (repeatable)")
	b.fs.Var(&n.DomainAllowlist, "domain-allowlist", "fetch only hosts equal to or under SUFFIX (repeatable)")
	b.fs.Var(&n.AllowPort, "allow-port", "also fetch from PORT; only 80 and 443 are allowed by default (repeatable)")
	b.fs.Var(&n.Resolve, "resolve", "pin HOST:PORT to ADDR, curl's convention; the address is still checked unless --allow-cidr covers it (repeatable)")
}

// Apply copies the ladder settings into the engine's network config.
func (n *NetFlags) Apply(net *engine.Network) {
	if !n.ladder {
		return
	}
	net.BrightDataURL, net.ApifyURL = n.BrightDataURL, n.ApifyURL
	net.CacheDir, net.CacheTTL = n.CacheDir, n.CacheTTL
	if !fleet.IsRedisURL(n.CacheDir) {
		net.CacheDir = absPath(n.CacheDir)
	}
	net.Fleet, net.FleetRequired = n.Fleet, n.FleetRequired
	net.GuardPolicy = n.guardPolicy()
	net.Concurrency, net.PerHost, net.HostInterval = n.Concurrency, n.PerHost, n.HostInterval
	net.PerAddress = n.PerAddress
	if n.PerAddress == 0 {
		net.PerAddress = -1 // the flag's 0 is "no limit"; the engine's 0 is its default
	}
}

// guardPolicy is the network controls as one canonical string: each
// flag's values sorted, so the same controls in another order are the same
// policy.
func (n *NetFlags) guardPolicy() string {
	var parts []string
	for _, f := range []struct {
		name string
		vals multiFlag
	}{{"allow-cidr", n.AllowCIDR}, {"allow-port", n.AllowPort}, {"domain-allowlist", n.DomainAllowlist}, {"resolve", n.Resolve}} {
		if len(f.vals) == 0 {
			continue
		}
		vals := slices.Clone([]string(f.vals))
		slices.Sort(vals)
		parts = append(parts, f.name+"="+strings.Join(vals, ","))
	}
	return strings.Join(parts, ";")
}

// Options turns the flags into guard options, or a usage error.
func (n *NetFlags) Options() ([]netguard.Option, error) {
	if !n.bound {
		return nil, nil
	}
	if n.ladder && (n.Concurrency < 1 || n.PerHost < 1 || n.PerAddress < 0 || n.HostInterval < 0 || n.CacheTTL <= 0) {
		return nil, fmt.Errorf("--concurrency and --per-host must be at least 1, --per-address not negative, --host-interval not negative, --cache-ttl positive")
	}
	if err := n.fleetUsage(); err != nil {
		return nil, err
	}
	var opts []netguard.Option
	for _, c := range n.AllowCIDR {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("--allow-cidr %q: %w", c, err)
		}
		opts = append(opts, netguard.AllowCIDR(p.Masked()))
	}
	for _, s := range n.DomainAllowlist {
		s = strings.Trim(strings.ToLower(strings.TrimSpace(s)), ".")
		if s == "" {
			return nil, fmt.Errorf("--domain-allowlist: empty suffix")
		}
		opts = append(opts, netguard.DomainAllowlist(s))
	}
	for _, p := range n.AllowPort {
		port, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("--allow-port %q: not a port number", p)
		}
		opts = append(opts, netguard.AllowPorts(port))
	}
	for _, r := range n.Resolve {
		host, port, addr, err := netguard.ParseResolve(r)
		if err != nil {
			return nil, fmt.Errorf("--resolve %q: %w", r, err)
		}
		opts = append(opts, netguard.Pin(host, port, addr))
	}
	return opts, nil
}

// fleetUsage checks the Redis addresses: --fleet must be one, and so must
// --cache when it looks like one; neither error shows a password.
func (n *NetFlags) fleetUsage() error {
	if n.Fleet != "" {
		if _, err := fleet.ParseAddr(n.Fleet); err != nil {
			return fmt.Errorf("--fleet: %w", err)
		}
	}
	if fleet.IsRedisURL(n.CacheDir) {
		if _, err := fleet.ParseAddr(n.CacheDir); err != nil {
			return fmt.Errorf("--cache: %w", err)
		}
	}
	if n.FleetRequired && n.Fleet == "" && !fleet.IsRedisURL(n.CacheDir) {
		return fmt.Errorf("--fleet-required needs --fleet or a redis:// --cache")
	}
	return nil
}
