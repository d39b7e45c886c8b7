package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nlnwa/whatwg-url/url"

	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse/icu"
)

// ErrNotHTTP means the URL parsed but its scheme is neither http nor https.
var ErrNotHTTP = errors.New("only http/https URLs are allowed")

// ErrNotAbsolute means the WHATWG parser rejected the input; without a base
// URL that is every input that is not an absolute URL.
var ErrNotAbsolute = errors.New("invalid absolute URL")

// URLError is returned by Canonical and Normalize. It wraps ErrNotHTTP or
// ErrNotAbsolute, and for ErrNotAbsolute also the parser's own error, whose
// text the reference reports as the "error" detail.
type URLError struct {
	URL      string // the input, unredacted, as net/url.Error keeps it
	Protocol string // the parsed scheme plus ":" (e.g. "ftp:"); set only with ErrNotHTTP
	Err      error
}

// Error reports the input and the reason.
func (e *URLError) Error() string {
	if e.Protocol != "" {
		return fmt.Sprintf("parse %q: %v (protocol %q)", e.URL, e.Err, e.Protocol)
	}
	return fmt.Sprintf("parse %q: %v", e.URL, e.Err)
}

// Unwrap lets errors.Is find ErrNotHTTP or ErrNotAbsolute.
func (e *URLError) Unwrap() error { return e.Err }

// parseHTTP is the check Canonical and Normalize share: an absolute WHATWG
// URL with an http or https scheme.
func parseHTTP(raw string) (*url.Url, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &URLError{URL: raw, Err: fmt.Errorf("%w: %w", ErrNotAbsolute, err)}
	}
	if s := u.Scheme(); s != "http" && s != "https" {
		return nil, &URLError{URL: raw, Protocol: u.Protocol(), Err: ErrNotHTTP}
	}
	// The parser maps some Unicode hosts to punycode it then refuses to
	// parse (an over-long label). Every later stage re-parses the href, so
	// such a URL is not usable: refuse it here (found by FuzzNormalize).
	if !isASCII(raw) {
		if _, err := url.Parse(u.Href(false)); err != nil {
			return nil, &URLError{URL: raw, Err: fmt.Errorf("%w: %w", ErrNotAbsolute, err)}
		}
	}
	return u, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Canonical parses raw as an absolute WHATWG URL and returns its href, with
// fragment, query and userinfo kept. It fails with a *URLError if raw is not
// absolute or its scheme is not http/https.
//
// This is the form the reference extractor emits (host lowercased, IDN to
// punycode, default port dropped, dot segments resolved, percent-encoding
// per WHATWG), so extracted-urls.txt stays comparable with it.
func Canonical(raw string) (string, error) { return fastOrSlow(raw, fastCanonical, slowCanonical) }

// fastOrSlow is fast's answer when it is sure of one, else slow's: how each
// URL form takes its fast path (see fastCanonical) in front of the WHATWG
// parser.
func fastOrSlow(raw string, fast func(string) (string, bool), slow func(string) (string, error)) (string, error) {
	if s, ok := fast(raw); ok {
		return s, nil
	}
	return slow(raw)
}

// slowCanonical is Canonical through the WHATWG parser.
func slowCanonical(raw string) (string, error) {
	u, err := parseHTTP(raw)
	if err != nil {
		return "", err
	}
	return u.Href(false), nil
}

// slowURLCost is an upper bound, in arbitrary units, of what slowCanonical
// costs on raw: the WHATWG parser rebuilds the path once per segment and
// re-encodes the userinfo once per character, so a 16 KiB URL can take half
// a second. Sources charges it against limits.urlBudget.
func slowURLCost(raw string) int {
	cost := len(raw) * (1 + strings.Count(raw, "/"))
	if at := strings.LastIndexByte(raw, '@'); at > 0 {
		cost += at * at
	}
	return cost
}

// fastCanonical computes the href of the common citation shape, plain ASCII
// scheme://host/path?query#fragment, without the WHATWG parser, which costs
// about as much as parsing the markdown around the URL. It declines (ok is
// false) anything whose href it cannot be sure of: ports, userinfo, IP
// addresses, punycode, dot segments, characters the parser would
// percent-encode, map or reject. FuzzFastCanonical holds it to the parser.
//
// Kept because a benchmark of the whole run shows it (with fastNormalize)
// (2,000 wave files, 50,000 URLs; medians of three interleaved runs, issue
// 12): BenchmarkRunOffline 0.89 s → 0.97 s and BenchmarkToolChainOffline 1.95
// s → 2.25 s without the two fast paths.
func fastCanonical(raw string) (href string, ok bool) {
	scheme, _, host, tail, ok := fastSplit(raw)
	if !ok || !fastHost(host) || !fastTail(tail) {
		return "", false
	}
	if !strings.HasPrefix(tail, "/") {
		tail = "/" + tail // a special URL's path is never empty
	} else if raw[:len(scheme)] == scheme && !hasUpper(host) {
		return raw, true
	}
	return scheme + strings.ToLower(host) + tail, true
}

// hasPrefixFold reports whether s starts with the lowercase ASCII prefix,
// ignoring ASCII case only (strings.EqualFold would also fold 'ſ' to 's').
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// fastHost accepts a DNS name of ASCII letters, digits and inner hyphens
// whose last label starts with a letter, so that IDNA processing only
// lowercases it and the IPv4 parser never claims it.
func fastHost(host string) bool {
	if len(host) == 0 || len(host) > 253 {
		return false
	}
	for label := range strings.SplitSeq(host, ".") {
		n := len(label)
		if n == 0 || n > 63 || label[0] == '-' || label[n-1] == '-' ||
			n >= 4 && label[2] == '-' && label[3] == '-' { // xn-- and other reserved forms
			return false
		}
		for i := 0; i < n; i++ {
			if c := label[i]; !isAlnum(c) && c != '-' {
				return false
			}
		}
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	c := last[0] | 0x20
	return 'a' <= c && c <= 'z'
}

// fastTail accepts a path, query and fragment made only of characters that
// WHATWG copies through unchanged in all three, with no dot segment to
// resolve.
func fastTail(tail string) bool {
	rest, fragment, _ := strings.Cut(tail, "#")
	path, query, _ := strings.Cut(rest, "?")
	if strings.Contains(path, "/.") || strings.Contains(path, "%2e") || strings.Contains(path, "%2E") {
		return false
	}
	for i := 0; i < len(path); i++ {
		if !fastTailChar[path[i]] {
			return false
		}
	}
	for _, part := range [...]string{query, fragment} {
		for i := 0; i < len(part); i++ {
			if c := part[i]; !fastTailChar[c] && c != '?' {
				return false
			}
		}
	}
	return true
}

// fastSplit splits an http(s) URL for the fast paths: the scheme as
// written in lower case with "://", its default port, the authority, and
// the rest from the first "/", "?" or "#". ok is false for other schemes.
func fastSplit(raw string) (scheme, defaultPort, host, tail string, ok bool) {
	switch {
	case hasPrefixFold(raw, "https://"):
		scheme, defaultPort = "https://", "443"
	case hasPrefixFold(raw, "http://"):
		scheme, defaultPort = "http://", "80"
	default:
		return "", "", "", "", false
	}
	rest := raw[len(scheme):]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return scheme, defaultPort, rest[:end], rest[end:], true
}

var fastTailChar = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%") {
		t[c] = true
	}
	return t
}()

// Normalize returns the normalized URL of origin.md §4.2, the string a cid is
// computed from: scheme://host[:port]path[?query] with the host lowercased,
// one trailing slash removed from the path, tracking parameters (utm_*,
// gclid, fbclid) dropped, the remaining query pairs sorted in ICU order and
// re-encoded with encodeURIComponent, and fragment and userinfo dropped.
// It fails with a *URLError exactly where Canonical does.
func Normalize(raw string) (string, error) { return fastOrSlow(raw, fastNormalize, slowNormalize) }

// slowNormalize is Normalize through the WHATWG parser; it handles every
// input, and fastNormalize is held to it by FuzzFastNormalize.
func slowNormalize(raw string) (string, error) {
	u, err := parseHTTP(raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(u.Scheme())
	b.WriteString("://")
	b.WriteString(strings.ToLower(u.Hostname()))
	// WHATWG already drops a scheme's default port, so :80 on http and :443
	// on https never get here; :443 on http is kept, as in the reference.
	if p := u.Port(); p != "" {
		b.WriteByte(':')
		b.WriteString(p)
	}
	b.WriteString(trimOneSlash(u.Pathname()))
	var buf [8]queryPair
	writeQuery(&b, queryPairs(buf[:0], u.Query()))
	return b.String(), nil
}

// trimOneSlash removes exactly one trailing slash from a path other than "/".
func trimOneSlash(path string) string {
	if path != "/" && strings.HasSuffix(path, "/") {
		return path[:len(path)-1]
	}
	return path
}

// fastNormalize computes Normalize for the shape fastCanonical takes, plain
// ASCII scheme://host/path?query#fragment, plus a numeric port, without the
// WHATWG parser. It declines (ok is false) whatever it cannot be sure of.
//
// The host and path rules are fastCanonical's, with one addition: the path
// may hold "'", which WHATWG leaves alone in a path. The query and fragment
// may hold any printable ASCII: the fragment is dropped, and the query is
// form-decoded next, which undoes exactly the escapes WHATWG would have
// added (none of them makes or breaks a %xx triplet, since an escape
// starts with '%' and escapes only non-hex characters).
func fastNormalize(raw string) (n string, ok bool) {
	scheme, defaultPort, host, tail, ok := fastSplit(raw)
	if !ok {
		return "", false
	}
	host, port, hasPort := strings.Cut(host, ":")
	if hasPort {
		if port, ok = fastPort(port, defaultPort); !ok {
			return "", false
		}
	}
	if !fastHost(host) {
		return "", false
	}
	beforeFragment, fragment, _ := strings.Cut(tail, "#")
	path, query, _ := strings.Cut(beforeFragment, "?")
	if !fastNormalizePath(path) || !fastPrintable(query, '#') || !fastPrintable(fragment, 0) {
		return "", false
	}
	if path == "" {
		path = "/" // a special URL's path is never empty
	} else {
		path = trimOneSlash(path)
	}
	var buf [8]queryPair
	pairs := queryPairs(buf[:0], query)
	// The common case, already normalized up to a trailing slash, query or
	// fragment, is a prefix of raw and costs no allocation.
	if at, end := len(scheme)+len(host), len(scheme)+len(host)+len(path); len(pairs) == 0 && !hasPort &&
		end <= len(raw) && raw[at:end] == path && raw[:len(scheme)] == scheme && !hasUpper(host) {
		return raw[:end], true
	}
	size := len(scheme) + len(host) + 1 + len(port) + len(path)
	for _, p := range pairs {
		size += len(p.key) + len(p.value) + 2
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(scheme)
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	b.WriteString(path)
	writeQuery(&b, pairs)
	return b.String(), true
}

// fastPort returns the port WHATWG would serialize for the digits after a
// host's ':' ("" for none or the scheme's default), declining anything but
// up to five digits below 65536.
func fastPort(digits, defaultPort string) (port string, ok bool) {
	if len(digits) > 5 {
		return "", false
	}
	v := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return "", false
		}
		v = v*10 + int(c-'0')
	}
	if v > 65535 {
		return "", false
	}
	if digits == "" {
		return "", true
	}
	port = strings.TrimLeft(digits, "0")
	if port == "" {
		port = "0"
	}
	if port == defaultPort {
		return "", true
	}
	return port, true
}

// fastNormalizePath accepts a path WHATWG copies through unchanged and with
// no dot segment to resolve: fastTail's path rule plus "'".
func fastNormalizePath(path string) bool {
	if strings.Contains(path, "/.") || strings.Contains(path, "%2e") || strings.Contains(path, "%2E") {
		return false
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; !fastTailChar[c] && c != '\'' {
			return false
		}
	}
	return true
}

// fastPrintable reports whether s is printable ASCII other than space and
// the byte not (0 excludes nothing more).
func fastPrintable(s string, not byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == not {
			return false
		}
	}
	return true
}

// CID returns "cid_" followed by the lowercase hex SHA-256 of normalized.
func CID(normalized string) string {
	sum := sha256.Sum256([]byte(normalized))
	var b [4 + 2*sha256.Size]byte // one allocation: every URL of a run has one
	copy(b[:], "cid_")
	hex.Encode(b[4:], sum[:])
	return string(b[:])
}

type queryPair struct{ key, value string }

// queryPairs and writeQuery reproduce the reference's round trip through
// URLSearchParams: parse as application/x-www-form-urlencoded, drop tracking
// keys, sort, and serialize with encodeURIComponent (which, unlike
// URLSearchParams.toString, writes a space as %20 and leaves !'()* alone).
//
// queryPairs appends the decoded, filtered and sorted pairs of query to dst.
func queryPairs(dst []queryPair, query string) []queryPair {
	ascii := true
	for piece := range strings.SplitSeq(query, "&") {
		if piece == "" {
			continue
		}
		k, v, _ := strings.Cut(piece, "=")
		k = netguard.FormDecode(k)
		if isTrackingKey(k) {
			continue
		}
		v = netguard.FormDecode(v)
		ascii = ascii && printableASCII(k) && printableASCII(v)
		dst = append(dst, queryPair{k, v})
	}
	if len(dst) < 2 {
		return dst
	}
	if !ascii {
		icu.SortBy(dst,
			func(p queryPair) string { return p.key },
			func(p queryPair) string { return p.value })
		return dst
	}
	// For printable ASCII, icu.Compare is the comparison SortBy makes with
	// its ASCII keys, without building them.
	slices.SortStableFunc(dst, func(a, b queryPair) int {
		if c := icu.Compare(a.key, b.key); c != 0 {
			return c
		}
		return icu.Compare(a.value, b.value)
	})
	return dst
}

// writeQuery writes "?" and the encoded pairs, or nothing if there are none.
func writeQuery(b *strings.Builder, pairs []queryPair) {
	for i, p := range pairs {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		encodeURIComponent(b, p.key)
		b.WriteByte('=')
		encodeURIComponent(b, p.value)
	}
}

// printableASCII reports whether s is made of space to tilde, the strings
// icu sorts with its ASCII keys.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func isTrackingKey(k string) bool {
	k = strings.ToLower(k)
	return strings.HasPrefix(k, "utm_") || k == "gclid" || k == "fbclid"
}

const upperHex = "0123456789ABCDEF"

// encodeURIComponent writes s the way JavaScript's encodeURIComponent does.
// s is valid UTF-8 (netguard.FormDecode guarantees it), so escaping byte by byte is
// escaping its UTF-8 encoding.
func encodeURIComponent(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isURIUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0xF])
	}
}

func isURIUnreserved(c byte) bool {
	switch {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-_.!~*'()", c) >= 0
}
