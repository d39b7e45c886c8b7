package netguard

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	whatwg "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/idna"
)

// Target is a URL that passed Preflight.
type Target struct {
	// URL is the WHATWG serialisation (href) of the input: scheme and host
	// lower-cased, an IDN host in punycode, a default port dropped, path and
	// query percent-encoded. Fetch this string, never the raw input, so the
	// request goes exactly where the check looked.
	URL string
	// Host is the ASCII host without brackets: a lower-case domain name
	// (with its trailing dot if the URL had one) or the canonical text of an
	// IP literal.
	Host string
	// Port is the effective port: the explicit one, or the scheme default.
	Port string
	// Addr is the address when Host is an IP literal, the zero Addr otherwise.
	Addr netip.Addr
}

// hostProfile is UTS #46 lookup mapping, non-transitional (so ß stays ß and
// becomes punycode), as the WHATWG URL standard and browsers apply it. It is
// the WHATWG profile with STD3 rules off, because those reject "_", which real
// host names use; checkLabels enforces the ASCII syntax afterwards instead.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.StrictDomainName(false),
	idna.ValidateLabels(true),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.Transitional(false),
)

// internalSuffixes name private networks by convention (RFC 6762 .local,
// RFC 8375 home.arpa, ICANN's never-delegated collision names, and common
// intranet habits). Such names only resolve through the operator's own
// resolver or search domains, so they can only lead inward. ".test" is not
// here: it never resolves publicly either, but tests of the connect-time
// layer use it with a stub resolver.
var internalSuffixes = []string{
	"local", "localdomain", "internal", "intranet", "lan",
	"home", "home.arpa", "corp", "private",
}

// Preflight checks raw, a URL taken from untrusted text, without any network
// access, and returns where it points. It enforces, in this order: length and
// control characters, the http/https scheme, the "//" authority form,
// absence of userinfo, port syntax, host syntax (IDNA mapping, no percent
// escapes, no invisible characters, no zone identifiers), canonical IP
// literals, the address policy for literals, blocked host names, the
// DomainAllowlist, and the port policy (AllowPorts). The host is judged
// before the port, so http://localhost:22/ reports the more telling
// ErrBlockedHost. The error wraps one of the package's sentinels; its text
// may name the host but never contains userinfo, path, query or fragment.
//
// A host name that passes can still resolve to a blocked address; only the
// connect-time check can catch that.
func (g *Guard) Preflight(raw string) (Target, error) {
	if len(raw) > g.maxURLLength {
		return Target{}, fmt.Errorf("netguard: URL longer than %d bytes: %w", g.maxURLLength, ErrMalformed)
	}
	s := trimC0Space(raw)
	if s == "" {
		return Target{}, fmt.Errorf("netguard: empty URL: %w", ErrMalformed)
	}
	if !utf8.ValidString(s) {
		return Target{}, fmt.Errorf("netguard: invalid UTF-8: %w", ErrMalformed)
	}
	for i := 0; i < len(s); i++ {
		// Parsers disagree on these (WHATWG silently drops tab and
		// newline, Go rejects them), and CR/LF is header injection.
		if s[i] <= ' ' || s[i] == 0x7f {
			return Target{}, fmt.Errorf("netguard: control character or space in URL: %w", ErrMalformed)
		}
	}

	// The scheme decides first: gopher://127.0.0.1/ is a protocol problem,
	// and must not reach the host checks at all.
	scheme, rest, ok := splitScheme(s)
	if !ok {
		if strings.HasPrefix(s, "//") {
			return Target{}, fmt.Errorf("netguard: scheme-relative URL: %w", ErrScheme)
		}
		return Target{}, fmt.Errorf("netguard: not an absolute URL: %w", ErrMalformed)
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return Target{}, fmt.Errorf("netguard: scheme %q: %w", clip(scheme), ErrScheme)
	}
	// WHATWG reads "http:host", "http:/host" and "http:\\host" as
	// http://host/, Go does not; demanding exactly "//" removes the
	// disagreement instead of picking a side.
	if !strings.HasPrefix(rest, "//") {
		return Target{}, fmt.Errorf("netguard: missing // after scheme: %w", ErrMalformed)
	}
	rest = rest[2:]
	authority := rest
	if end := strings.IndexAny(rest, `/?#\`); end >= 0 {
		// A backslash ends the authority for WHATWG but not for Go, so
		// example.com\@127.0.0.1 names a different host to each.
		if rest[end] == '\\' {
			return Target{}, fmt.Errorf("netguard: backslash in authority: %w", ErrMalformed)
		}
		authority = rest[:end]
	}
	if strings.Contains(authority, "@") {
		return Target{}, fmt.Errorf("netguard: userinfo in authority: %w", ErrUserinfo)
	}
	host, port, bracketed, err := splitHostPort(authority)
	if err != nil {
		return Target{}, err
	}

	var t Target
	trusted := g.trusted(scheme, host, effectivePort(scheme, port))
	switch {
	case trusted:
		t.Host = pinHost(host)
		t.Addr, _ = netip.ParseAddr(t.Host)
	case bracketed:
		t.Addr, err = g.checkIPv6Literal(host)
		if err == nil {
			t.Host = t.Addr.String()
		}
	default:
		t.Host, t.Addr, err = g.checkHostName(host)
	}
	if err != nil {
		return Target{}, err
	}

	// The WHATWG parser produces the string that will be fetched. It must
	// agree with the analysis above; if it does not, one of the two is
	// wrong about this input and the safe answer is to refuse it.
	u, err := whatwg.Parse(s)
	if err != nil {
		return Target{}, fmt.Errorf("netguard: WHATWG parser rejects URL: %w", ErrMalformed)
	}
	if u.Scheme() != scheme || u.Username() != "" || u.Password() != "" || !sameHost(u.Hostname(), t) {
		return Target{}, fmt.Errorf("netguard: %s: URL parsers disagree on the target: %w", clip(t.Host), ErrMalformed)
	}
	t.URL = u.Href(false)
	if len(t.URL) > g.maxURLLength {
		// Percent-encoding can triple a URL; the cap is on what is
		// fetched and stored, so that a redirect to the same string,
		// already encoded, is judged the same way.
		return Target{}, fmt.Errorf("netguard: URL longer than %d bytes once encoded: %w", g.maxURLLength, ErrMalformed)
	}
	t.Port = effectivePort(scheme, port)
	if trusted {
		return t, nil
	}
	if err := g.checkPort(t.Port); err != nil {
		return Target{}, err
	}
	return t, nil
}

// effectivePort is the explicit port, or the scheme's default.
func effectivePort(scheme, port string) string {
	switch {
	case port != "":
		return port
	case scheme == "https":
		return "443"
	}
	return "80"
}

// checkPort applies the port policy to a port already known to be 1-65535
// in plain decimal.
func (g *Guard) checkPort(port string) error {
	n, err := strconv.Atoi(port)
	if err != nil || !g.ports[n] {
		return fmt.Errorf("netguard: port %s: %w", clip(port), ErrBlockedPort)
	}
	return nil
}

// checkIPv6Literal checks the text between "[" and "]".
func (g *Guard) checkIPv6Literal(host string) (netip.Addr, error) {
	if strings.Contains(host, "%") {
		// Go accepts fe80::1%25eth0 and dials it with the zone; a zoned
		// address matches no prefix, so it would dodge the classifier.
		return netip.Addr{}, fmt.Errorf("netguard: IPv6 zone identifier: %w", ErrMalformed)
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !a.Is6() {
		return netip.Addr{}, fmt.Errorf("netguard: invalid IPv6 literal: %w", ErrMalformed)
	}
	if err := g.CheckAddr(a); err != nil {
		return netip.Addr{}, err
	}
	if !g.inDomainAllowlist(a.String()) {
		return netip.Addr{}, fmt.Errorf("netguard: %s: %w", a, ErrNotAllowlisted)
	}
	return a, nil
}

// checkHostName checks an unbracketed host and returns its ASCII form, plus
// the address when it is a canonical IPv4 literal.
func (g *Guard) checkHostName(host string) (string, netip.Addr, error) {
	mapped, a, err := g.checkName(host)
	if err != nil {
		return "", netip.Addr{}, err
	}
	if name := strings.TrimSuffix(mapped, "."); !g.inDomainAllowlist(name) {
		return "", netip.Addr{}, fmt.Errorf("netguard: %s: %w", name, ErrNotAllowlisted)
	}
	return mapped, a, nil
}

// checkName is checkHostName without the DomainAllowlist, which is a URL
// policy; DialContext uses it for the names it is asked to dial.
func (g *Guard) checkName(host string) (string, netip.Addr, error) {
	if host == "" {
		return "", netip.Addr{}, fmt.Errorf("netguard: empty host: %w", ErrMalformed)
	}
	if strings.Contains(host, "%") {
		// WHATWG decodes %31%32%37.0.0.1 to 127.0.0.1 and Go refuses it;
		// decoding and retrying would only invite double-encoding games.
		return "", netip.Addr{}, fmt.Errorf("netguard: percent-encoded host: %w", ErrMalformed)
	}
	if hasInvisible(host) {
		// IDNA silently deletes soft hyphens and zero-width characters,
		// so the host the reader sees is not the one that is fetched.
		return "", netip.Addr{}, fmt.Errorf("netguard: invisible character in host: %w", ErrMalformed)
	}
	mapped, err := hostProfile.ToASCII(host)
	if err != nil {
		return "", netip.Addr{}, fmt.Errorf("netguard: invalid host name: %w", ErrMalformed)
	}
	name := strings.TrimSuffix(mapped, ".")

	// WHATWG (and getaddrinfo) read any host whose last label is a number
	// as an IPv4 address, in decimal, octal or hex, with 1 to 4 parts. Only
	// the canonical dotted quad, written in ASCII, means the same thing to
	// every parser and resolver.
	if endsInNumber(name) {
		a, err := netip.ParseAddr(mapped)
		if err != nil || !a.Is4() || mapped != host {
			return "", netip.Addr{}, fmt.Errorf("netguard: %q: %w", clip(host), ErrNonCanonicalIP)
		}
		if err := g.CheckAddr(a); err != nil {
			return "", netip.Addr{}, err
		}
		return mapped, a, nil
	}

	if err := checkLabels(name); err != nil {
		return "", netip.Addr{}, err
	}
	if why := blockedName(name); why != "" {
		return "", netip.Addr{}, fmt.Errorf("netguard: %s: %s: %w", name, why, ErrBlockedHost)
	}
	return mapped, netip.Addr{}, nil
}

// blockedName returns why name (mapped, no trailing dot) is refused, or "".
func blockedName(name string) string {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return "localhost (RFC 6761)"
	}
	if !strings.Contains(name, ".") {
		// metadata, intranet, ip6-localhost: these only resolve through
		// /etc/hosts or search domains, i.e. inside the operator's network.
		return "single-label name"
	}
	for _, sfx := range internalSuffixes {
		if name == sfx || strings.HasSuffix(name, "."+sfx) {
			return "internal suffix ." + sfx
		}
	}
	return ""
}

// checkLabels enforces DNS host syntax on an IDNA-mapped name: 1-63 octet
// labels of letters, digits, "-" and "_", no leading hyphen, 253 octets in all.
func checkLabels(name string) error {
	if name == "" || len(name) > 253 {
		return fmt.Errorf("netguard: host name length: %w", ErrMalformed)
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' {
			return fmt.Errorf("netguard: invalid host label: %w", ErrMalformed)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("netguard: invalid character in host: %w", ErrMalformed)
			}
		}
	}
	return nil
}

// endsInNumber mirrors the WHATWG "ends in a number" test on a mapped,
// lower-case name without its trailing dot: the last label is all decimal
// digits, or "0x" followed by hex digits (possibly none).
func endsInNumber(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	digits := "0123456789"
	if strings.HasPrefix(last, "0x") {
		last, digits = last[2:], "0123456789abcdef"
	}
	for i := 0; i < len(last); i++ {
		if strings.IndexByte(digits, last[i]) < 0 {
			return false
		}
	}
	return true
}

// splitScheme splits "scheme:rest" when scheme is syntactically a scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// splitHostPort splits an authority without userinfo. An unbracketed host
// may not contain ":" at all: Go parses 127.0.0.1:80:80 with the host
// "127.0.0.1:80", so anything but one decimal port is refused.
func splitHostPort(authority string) (host, port string, bracketed bool, err error) {
	hasPort := false
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", "", false, fmt.Errorf("netguard: unclosed IPv6 literal: %w", ErrMalformed)
		}
		host, bracketed = authority[1:end], true
		switch after := authority[end+1:]; {
		case after == "":
		case after[0] == ':':
			port, hasPort = after[1:], true
		default:
			return "", "", false, fmt.Errorf("netguard: text after IPv6 literal: %w", ErrMalformed)
		}
	} else {
		host = authority
		if i := strings.IndexByte(authority, ':'); i >= 0 {
			host, port, hasPort = authority[:i], authority[i+1:], true
		}
		if strings.ContainsAny(host, "[]") {
			return "", "", false, fmt.Errorf("netguard: bracket in host: %w", ErrMalformed)
		}
	}
	if hasPort && !validPort(port) {
		return "", "", false, fmt.Errorf("netguard: bad port: %w", ErrMalformed)
	}
	if host == "" {
		return "", "", false, fmt.Errorf("netguard: empty host: %w", ErrMalformed)
	}
	return host, port, bracketed, nil
}

// validPort accepts 1-65535 in plain decimal. Signs, leading zeros and an
// empty port are refused rather than normalised: each is a spelling some
// parser reads differently, and no honest citation needs one.
func validPort(p string) bool {
	if p == "" || len(p) > 5 || p[0] == '0' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	n, err := strconv.Atoi(p)
	return err == nil && n <= 65535
}

// hasInvisible reports default-ignorable code points (format characters such
// as U+00AD and U+200B, variation selectors, and the rest of the Unicode
// Default_Ignorable set), which render as nothing.
func hasInvisible(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && (unicode.Is(unicode.Cf, r) ||
			unicode.Is(unicode.Variation_Selector, r) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)) {
			return true
		}
	}
	return false
}

// sameHost reports whether the WHATWG hostname names the host Preflight
// checked. IPv6 literals are compared as addresses because the two sides
// serialise them differently (WHATWG keeps ::ffff:7f00:1 in hex).
func sameHost(whatwgHost string, t Target) bool {
	if t.Addr.Is6() {
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(whatwgHost, "["), "]"))
		return err == nil && a == t.Addr
	}
	return whatwgHost == t.Host
}

// trimC0Space removes what WHATWG strips from both ends of a URL: C0 control
// characters and space.
func trimC0Space(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// clip bounds attacker-chosen text that goes into an error message.
func clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}
