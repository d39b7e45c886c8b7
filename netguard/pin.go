package netguard

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// pinKey is a pinned name (IDNA-mapped, lower-case, no trailing dot) and port.
type pinKey struct {
	host string
	port int
}

// Pin makes DialContext use addr for host:port without asking the resolver,
// like curl's --resolve HOST:PORT:ADDR. It exists for operators whose DNS
// cannot be trusted or reached, and for tests, which pin public-looking
// names to a loopback listener. A pin replaces DNS, not the policy: the
// pinned address is still classified (so pinning a name to 10.0.0.1 fails
// unless AllowCIDR covers it), the name still passes Preflight's name
// checks, and the port still needs the port policy. Pins are exact: other
// ports of the same host resolve normally. Use ParseResolve to read the
// curl syntax with error checking; Pin itself trusts its arguments, and an
// invalid addr pins the name to an address CheckAddr refuses.
func Pin(host string, port int, addr netip.Addr) Option {
	return func(g *Guard) {
		g.pins[pinKey{pinHost(host), port}] = addr
	}
}

// pinHost normalises a pinned name the way DialContext sees names.
func pinHost(host string) string {
	if mapped, err := hostProfile.ToASCII(host); err == nil {
		host = mapped
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// ParseResolve parses a curl-style --resolve argument, "HOST:PORT:ADDR",
// for Pin. ADDR is an IPv4 or IPv6 address, optionally in brackets
// ("example.com:443:[2001:db8::1]"). HOST must be a name, not an IP
// literal, and is returned IDNA-mapped and lower-case. curl's extensions
// (a "+" or "-" prefix, the "*" wildcard, several comma-separated
// addresses) are refused rather than half-supported. Errors wrap
// ErrMalformed and say which part is wrong.
func ParseResolve(spec string) (host string, port int, addr netip.Addr, err error) {
	bad := func(why string) error {
		return fmt.Errorf("netguard: resolve %q: %s (want HOST:PORT:ADDR): %w", clip(spec), why, ErrMalformed)
	}
	s := strings.TrimSpace(spec)
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		return "", 0, netip.Addr{}, bad("curl's +/- prefixes are not supported")
	}
	host, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", 0, netip.Addr{}, bad("missing port and address")
	}
	portText, addrText, ok := strings.Cut(rest, ":")
	if !ok {
		return "", 0, netip.Addr{}, bad("missing address")
	}
	switch {
	case host == "":
		return "", 0, netip.Addr{}, bad("empty host")
	case host == "*":
		return "", 0, netip.Addr{}, bad("wildcard host is not supported")
	case strings.ContainsAny(host, "[]"):
		return "", 0, netip.Addr{}, bad("host must be a name, not an IP literal")
	}
	name, err := hostProfile.ToASCII(host)
	if err != nil || checkLabels(strings.TrimSuffix(name, ".")) != nil {
		return "", 0, netip.Addr{}, bad("invalid host name")
	}
	name = strings.TrimSuffix(name, ".")
	if endsInNumber(name) {
		return "", 0, netip.Addr{}, bad("host must be a name, not an IP literal")
	}
	if !validPort(portText) {
		return "", 0, netip.Addr{}, bad("port must be 1-65535 in plain decimal")
	}
	port, _ = strconv.Atoi(portText)
	if strings.Contains(addrText, ",") {
		return "", 0, netip.Addr{}, bad("one address only")
	}
	if strings.HasPrefix(addrText, "[") || strings.HasSuffix(addrText, "]") {
		if len(addrText) < 2 || addrText[0] != '[' || addrText[len(addrText)-1] != ']' {
			return "", 0, netip.Addr{}, bad("unbalanced brackets around address")
		}
		addrText = addrText[1 : len(addrText)-1]
	}
	addr, err = netip.ParseAddr(addrText)
	switch {
	case err != nil:
		return "", 0, netip.Addr{}, bad("invalid IP address")
	case addr.Zone() != "":
		return "", 0, netip.Addr{}, bad("zoned address")
	}
	return name, port, addr, nil
}
