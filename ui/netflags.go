package ui

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

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
}

func bindNet(b *binder, n *NetFlags) {
	b.fs.Var(&n.AllowCIDR, "allow-cidr", "admit addresses in CIDR although the SSRF policy refuses them, e.g. an intranet wiki (repeatable)")
	b.fs.Var(&n.DomainAllowlist, "domain-allowlist", "fetch only hosts equal to or under SUFFIX (repeatable)")
	b.fs.Var(&n.AllowPort, "allow-port", "also fetch from PORT; only 80 and 443 are allowed by default (repeatable)")
	b.fs.Var(&n.Resolve, "resolve", "pin HOST:PORT to ADDR, curl's convention; the address is still checked unless --allow-cidr covers it (repeatable)")
}

// Options turns the flags into guard options, or a usage error.
func (n *NetFlags) Options() ([]netguard.Option, error) {
	var opts []netguard.Option
	for _, c := range n.AllowCIDR {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("--allow-cidr %q: %v", c, err)
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
			return nil, fmt.Errorf("--resolve %q: %v", r, err)
		}
		opts = append(opts, netguard.Pin(host, port, addr))
	}
	return opts, nil
}
